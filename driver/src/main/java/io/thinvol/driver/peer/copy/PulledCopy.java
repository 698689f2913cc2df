package io.thinvol.driver.peer.copy;

import io.grpc.Status;
import io.thinvol.driver.core.CsiException;
import io.thinvol.driver.core.RemoteSources;
import io.thinvol.driver.core.RemoteSources.DeltaBase;
import io.thinvol.driver.core.SourceImage;
import io.thinvol.driver.host.DeltaSpool;
import io.thinvol.driver.host.SparseFiles;
import io.thinvol.driver.peer.PeerClient;
import io.thinvol.driver.peer.PeerEndpoint;
import io.thinvol.driver.store.AccessType;
import io.thinvol.peer.v1.ImageDigest;
import io.thinvol.peer.v1.PullChunk;
import io.thinvol.peer.v1.PullHeader;
import io.thinvol.peer.v1.PullRequest;
import io.thinvol.peer.v1.PullTrailer;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;

/**
 * One pull from a peer, as this node receives it: the header read when it starts, then the ranges
 * written into a new sparse file at their offsets (what is not sent stays a hole), each checked to
 * lie after the last and inside the source, and the digest of what was written compared with the
 * sender's. A delta is written onto a copy of its base instead, its zero pieces punched out, and
 * the whole result is then compared with the sender's digest of the snapshot; or, for a delta
 * applied in place, kept in a spool and checked from the base's record before anything is applied.
 * A sender that goes silent is given up ({@link PullParts}). Closing it cancels the call.
 */
final class PulledCopy implements RemoteSources.RemoteCopy {

  /** The heartbeat interval asked of the sender: its silence for six of them gives the copy up. */
  static final int HEARTBEAT_SECONDS = 10;

  private final PeerEndpoint peer;
  private final PullParts parts;
  private final SourceImage description;
  private final boolean delta;
  private long received;
  private BlockSums.Writer record; // a delta's result's, until it is sealed
  private PieceBlocks blocks; // a whole copy's, until it is sealed
  private DeltaSpool spool; // where a delta applied in place keeps its changes
  private boolean verified;

  private PulledCopy(PeerEndpoint peer, PullParts parts, PullHeader header, boolean delta) {
    this.peer = peer;
    this.delta = delta;
    this.parts = parts;
    this.description =
        new SourceImage(
            header.getSizeBytes(),
            "block".equals(header.getAccessType()) ? AccessType.BLOCK : AccessType.MOUNT,
            header.getFsType().isEmpty() ? null : header.getFsType(),
            header.getFormatted());
  }

  /** Starts the pull and reads its header; NOT_FOUND when {@code peer} does not hold it. */
  static PulledCopy start(
      PeerClient client, PeerEndpoint peer, PullRequest request, Duration budget) {
    PullParts parts =
        PullParts.open(
            client,
            peer,
            request.toBuilder()
                .setDigestVersion(RangeDigest.version())
                .setHeartbeatSeconds(HEARTBEAT_SECONDS)
                .build(),
            budget);
    try {
      PullPart part = parts.first();
      if (part == null || part.partCase() != PullChunk.PartCase.HEADER) {
        throw broken(peer, "it did not start with a header");
      }
      PullChunk first = part.chunk();
      if (first.getHeader().getDigestVersion() != RangeDigest.version()) {
        // Before any data: an older sender's SHA-256 digests would fail the check at the end.
        throw new CsiException(
            Status.Code.UNAVAILABLE,
            String.format(
                "the driver on %s is of another release (its copies carry digest version %d, this"
                    + " driver checks version %d); retry once the driver DaemonSet's rollout is"
                    + " done",
                peer.describe(), first.getHeader().getDigestVersion(), RangeDigest.version()));
      }
      parts.watch(Duration.ofSeconds(first.getHeader().getHeartbeatSeconds()));
      return new PulledCopy(peer, parts, first.getHeader(), !request.getBaseSnapshotId().isEmpty());
    } catch (RuntimeException e) {
      parts.close();
      throw e;
    }
  }

  @Override
  public SourceImage description() {
    return description;
  }

  @Override
  public String node() {
    return peer.node();
  }

  @Override
  public void writeTo(Path image, DeltaBase base) throws IOException {
    if (!delta) {
      blocks = PieceBlocks.of(image, description.sizeBytes());
      receive(image, null);
      verified = true;
      return;
    }
    SparseFiles.extend(image, description.sizeBytes()); // the volume may have grown since
    record = BlockSums.Writer.create(image, description.sizeBytes());
    try (DeltaResultCheck check =
        DeltaResultCheck.open(image, description.sizeBytes(), base, record)) {
      receive(image, check);
      check.written();
      ImageDigest snapshot = snapshotDigest();
      verifyImage(check.digest(snapshot), snapshot);
    }
    verified = true;
  }

  @Override
  public boolean spoolTo(DeltaSpool into, Path image, DeltaBase base) throws IOException {
    if (!delta) {
      throw new IllegalStateException("a whole copy has no base to apply onto");
    }
    record = BlockSums.Writer.create(image, description.sizeBytes());
    try (DeltaResultCheck check =
        DeltaResultCheck.inPlace(base.image(), description.sizeBytes(), record)) {
      if (check == null) {
        return false;
      }
      spool = into;
      receive(image, check);
      verified = check.vouchedFor(snapshotDigest());
      return verified;
    } finally {
      spool = null;
    }
  }

  /** The sender's digest of the whole snapshot, which ends a delta. */
  private ImageDigest snapshotDigest() {
    PullPart theirs = parts.next();
    if (theirs == null || theirs.partCase() != PullChunk.PartCase.IMAGE) {
      throw broken(peer, "its delta did not end with the digest of the whole snapshot");
    }
    if (parts.next() != null) {
      throw broken(peer, "it went on after the digest of the whole snapshot");
    }
    return theirs.chunk().getImage();
  }

  @Override
  public void recordBlocks(Path image) {
    if (!delta) {
      if (!verified || !blocks.seal(image)) {
        BlockRecords.readAndSeal(image);
      }
      blocks = null;
    } else if (record != null && verified) {
      BlockRecords.seal(record, image);
      record = null;
    }
  }

  /**
   * Writes the pieces up to the trailer and checks them against it; a delta's are applied onto the
   * image, and the check of the whole image reads each part once nothing more comes for it.
   */
  private void receive(Path image, DeltaResultCheck check) throws IOException {
    RangeDigest digest = new RangeDigest();
    long written = 0;
    try (PieceSink out = spool != null ? PieceSink.spool(spool) : PieceSink.image(image, !delta)) {
      for (PullPart part = parts.next(); ; part = parts.next()) {
        if (part == null) {
          throw new CsiException(
              Status.Code.UNAVAILABLE,
              "the copy from " + peer.describe() + " ended before it was complete");
        }
        if (part.partCase() == PullChunk.PartCase.TRAILER) {
          received = digest.bytes();
          verify(part.chunk().getTrailer(), digest.trailer());
          out.complete();
          if (!delta && parts.next() != null) {
            throw broken(peer, "it went on after its trailer");
          }
          return;
        }
        if (!part.isPiece()) {
          throw broken(peer, "it sent a " + part.partCase() + " before its trailer");
        }
        try {
          written = write(part, out, digest, check, written);
        } finally {
          part.release();
        }
      }
    }
  }

  /**
   * Writes one piece (bytes at their offset, or a delta's run of zeros punched out) after the last,
   * checksummed as it is; returns where it ends.
   */
  private long write(
      PullPart part, PieceSink out, RangeDigest digest, DeltaResultCheck check, long written)
      throws IOException {
    ByteBuffer piece = part.bytes();
    boolean zeros = part.zeroLength() > 0;
    if (zeros && (!delta || piece.hasRemaining())) {
      throw broken(peer, "it sent a zero piece that is not one of a delta's");
    }
    long offset = part.offset();
    long end = offset + (zeros ? part.zeroLength() : piece.remaining());
    if (offset < written || end > description.sizeBytes()) {
      throw broken(
          peer,
          "it sent bytes at "
              + offset
              + " after "
              + written
              + " of a "
              + description.sizeBytes()
              + "-byte source");
    }
    if (zeros) {
      check.zeros(offset, part.zeroLength());
      out.zeros(offset, part.zeroLength());
      digest.addZeros(offset, part.zeroLength());
    } else {
      if (check != null) {
        check.piece(offset, piece);
      }
      digest.add(offset, piece, blocks);
      out.bytes(offset, piece);
    }
    return end;
  }

  @Override
  public long receivedBytes() {
    return received;
  }

  private void verify(PullTrailer theirs, PullTrailer ours) {
    if (!theirs.equals(ours)) {
      throw CsiException.internal(
          String.format(
              "the copy from %s does not match its sender's digest (received %d bytes in %d"
                  + " pieces, the sender counted %d in %d); nothing was kept, a retry copies again",
              peer.describe(),
              ours.getDataBytes(),
              ours.getPieces(),
              theirs.getDataBytes(),
              theirs.getPieces()),
          null);
    }
  }

  /** A delta's result must read as the sender's snapshot, everywhere. */
  private void verifyImage(ImageDigest ours, ImageDigest theirs) {
    if (!ours.equals(theirs)) {
      throw CsiException.internal(
          String.format(
              "the delta from %s applied onto the base does not read as the snapshot (%d bytes of"
                  + " data here, %d there): the base is not an unchanged copy of the base snapshot"
                  + " (written since it was made?); nothing was kept, pull the snapshot in full",
              peer.describe(), ours.getDataBytes(), theirs.getDataBytes()),
          null);
    }
  }

  private static CsiException broken(PeerEndpoint peer, String what) {
    return CsiException.internal(
        "the copy from " + peer.describe() + " is malformed: " + what + "; nothing was kept", null);
  }

  @Override
  public void close() {
    parts.close();
    if (record != null) {
      record.discard();
    }
    if (blocks != null) {
      blocks.discard();
    }
  }
}
