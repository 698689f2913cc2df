package io.thinvol.driver.peer.copy;

import com.google.protobuf.ByteString;
import io.thinvol.peer.v1.PullTrailer;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The digest of a pulled copy, computed alike by the sender over what it read and by the receiver
 * over what it wrote: SHA-256 over every piece in order, each as its offset and length (8 bytes
 * each, big-endian) and the {@link Checksums} of its bytes. Offsets are part of it, so a piece
 * written at the wrong place fails the check as surely as a wrong byte.
 */
public final class RangeDigest {

  private final MessageDigest sha256;
  private final Checksums checksums = new Checksums();
  private final JoinedChecksums joined = new JoinedChecksums();
  private final ByteBuffer frame = ByteBuffer.allocate(2 * Long.BYTES + Checksums.BYTES);
  private long bytes;
  private long pieces;

  public RangeDigest() {
    try {
      sha256 = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * A piece of the {@code data} remaining in a direct or writable buffer (see {@link
   * Checksums#put}), whose position it leaves.
   */
  public void add(long offset, ByteBuffer data) {
    frame.clear();
    frame.putLong(offset).putLong(data.remaining());
    checksums.put(data, frame);
    added(data.remaining());
  }

  /**
   * As above for a piece also recorded block by block in {@code blocks} (null: none), whose blocks'
   * checksums joined are the piece's: its bytes are read once.
   */
  public void add(long offset, ByteBuffer data, PieceBlocks blocks) {
    if (blocks == null || !blocks.add(offset, data, joined)) {
      add(offset, data);
      return;
    }
    frame.clear();
    frame.putLong(offset).putLong(data.remaining());
    joined.putInto(frame);
    added(data.remaining());
  }

  /** The frame of a piece of {@code length} bytes is filled: hashes it. */
  private void added(long length) {
    sha256.update(frame.flip());
    bytes += length;
    pieces++;
  }

  /** As above for a piece held in a ByteString (tests; the copy's paths pass buffers). */
  public void add(long offset, ByteString data) {
    ByteBuffer direct = ByteBuffer.allocateDirect(data.size());
    data.copyTo(direct);
    add(offset, direct.flip());
  }

  /** A delta's piece that reads as zeros: its offset, its length and -1 in place of checksums. */
  public void addZeros(long offset, long length) {
    frame.clear();
    frame.putLong(offset).putLong(length).putLong(-1);
    sha256.update(frame.flip());
    pieces++;
  }

  public long bytes() {
    return bytes;
  }

  /** The trailer that ends the copy; the digest cannot be added to after. */
  public PullTrailer trailer() {
    return PullTrailer.newBuilder()
        .setSha256(ByteString.copyFrom(sha256.digest()))
        .setDataBytes(bytes)
        .setPieces(pieces)
        .build();
  }

  /** What the peers' copies are checked with (PullRequest's and PullHeader's digest_version). */
  public static int version() {
    return Checksums.DIGEST_VERSION;
  }
}
