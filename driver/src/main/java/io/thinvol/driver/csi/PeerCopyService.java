package io.thinvol.driver.csi;

import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.thinvol.driver.core.CsiException;
import io.thinvol.driver.core.PointInTimeImages;
import io.thinvol.driver.core.metadata.RangeCursor;
import io.thinvol.driver.core.metadata.SnapshotMetadata;
import io.thinvol.driver.peer.copy.ClaimSources;
import io.thinvol.driver.peer.copy.PieceBlocks;
import io.thinvol.driver.peer.copy.RangeDigest;
import io.thinvol.driver.peer.copy.ReplicaEntitlement;
import io.thinvol.driver.store.ContentSource;
import io.thinvol.peer.v1.PeerCopyGrpc;
import io.thinvol.peer.v1.PullChunk;
import io.thinvol.peer.v1.PullRequest;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.MDC;

/**
 * Copies of this node's volumes and snapshots for another node's driver, on the CSI-Addons TLS port
 * (whose interceptor admits only the drivers' own ServiceAccount to it). A copy is sent only for
 * the one source the request names, only when the claim it names asks for that source, and only
 * from a point in time: a snapshot, or a volume held still or copied first. A delta (a base
 * snapshot named) is sent on the same terms for its target snapshot; its base must be an earlier
 * snapshot of the same volume on this node, which the puller holds a copy of.
 */
public final class PeerCopyService extends PeerCopyGrpc.PeerCopyImplBase {

  // The longest the copy of an attached volume may take when the caller sets no deadline.
  private static final Duration COPY_LIMIT = Duration.ofHours(2);

  // The longest heartbeat interval a puller may ask for.
  private static final int MAX_HEARTBEAT_SECONDS = 300;

  /** Copies sent at once; one more is told to retry (each reads its image as fast as it can). */
  static final int SENDERS = 4;

  private final ThreadPoolExecutor senders =
      new ThreadPoolExecutor(
          0,
          SENDERS,
          60,
          TimeUnit.SECONDS,
          new SynchronousQueue<>(),
          runnable -> {
            Thread thread = new Thread(runnable, "peer-copy");
            thread.setDaemon(true);
            return thread;
          });
  private final PointInTimeImages images;
  private final SnapshotMetadata metadata;
  private final ClaimSources claims;
  private final ReplicaEntitlement replicas;
  private final String nodeId;

  public PeerCopyService(
      PointInTimeImages images,
      SnapshotMetadata metadata,
      ClaimSources claims,
      ReplicaEntitlement replicas,
      String nodeId) {
    this.images = images;
    this.metadata = metadata;
    this.claims = claims;
    this.replicas = replicas;
    this.nodeId = nodeId;
  }

  @Override
  public void pull(PullRequest request, StreamObserver<PullChunk> observer) {
    String subject = request.hasVolumeId() ? request.getVolumeId() : request.getSnapshotId();
    MDC.put(Rpc.MDC_RPC, "PeerCopy.Pull");
    MDC.put(Rpc.MDC_VOLUME, Requests.shown(subject));
    try {
      ContentSource source = source(request);
      String what = (request.hasVolumeId() ? "volume " : "snapshot ") + source.id();
      if (!images.holds(source)) {
        throw CsiException.notFound("%s does not exist on node %s", what, nodeId);
      }
      if (request.getDigestVersion() != RangeDigest.version()) {
        // An older puller would check this copy with SHA-256 over the bytes, and fail at its end.
        throw new CsiException(
            Status.Code.UNAVAILABLE,
            String.format(
                "node %s sends copies with digest version %d, the puller asks for version %d (its"
                    + " driver is of another release); retry once the driver DaemonSet's rollout"
                    + " is done",
                nodeId, RangeDigest.version(), request.getDigestVersion()));
      }
      String base = base(request, source, what);
      entitled(request, source);
      Duration budget = Rpc.remaining(COPY_LIMIT);
      // Opened here, so that a base of another volume is refused before the stream starts.
      RangeCursor delta = base == null ? null : metadata.delta(base, source.id(), 0);
      PieceBlocks record = base == null ? snapshotRecord(source) : null;
      PullStream stream =
          new PullStream(
              what,
              nodeId,
              (ServerCallStreamObserver<PullChunk>) observer,
              () -> images.open(source, budget),
              delta,
              base == null ? null : images.snapshotImage(base),
              Duration.ofSeconds(Math.min(request.getHeartbeatSeconds(), MAX_HEARTBEAT_SECONDS)),
              record,
              () -> images.withSnapshotImage(source.id(), record::seal));
      try {
        senders.execute(stream);
      } catch (RejectedExecutionException e) {
        closeQuietly(delta);
        if (record != null) {
          record.discard();
        }
        throw new CsiException(
            Status.Code.UNAVAILABLE,
            String.format(
                "node %s is sending %d copies already; retry in a moment", nodeId, SENDERS));
      }
    } catch (RuntimeException e) {
      Rpc.fail(observer, e);
    } finally {
      MDC.remove(Rpc.MDC_RPC);
      MDC.remove(Rpc.MDC_VOLUME);
    }
  }

  /**
   * A whole snapshot sent may be a move's pre-copy, the base of the delta that follows: its blocks
   * are recorded from the pieces sent (docs/decisions.md). The record's file is made, and later
   * published, under the snapshot's lock, so that a DeleteSnapshot never meets it half made.
   */
  private PieceBlocks snapshotRecord(ContentSource source) {
    if (source.kind() != ContentSource.Kind.SNAPSHOT) {
      return null;
    }
    AtomicReference<PieceBlocks> made = new AtomicReference<>();
    images.withSnapshotImage(source.id(), image -> made.set(PieceBlocks.ofSnapshot(image)));
    return made.get();
  }

  /** PERMISSION_DENIED unless the claim, or the VolumeReplication, named entitles the caller. */
  private void entitled(PullRequest request, ContentSource source) {
    if (request.getReplicationName().isEmpty()) {
      Requests.requirePresent(request.getClaimNamespace(), "claim_namespace");
      Requests.requirePresent(request.getClaimName(), "claim_name");
      claims.requireSourceOf(request.getClaimNamespace(), request.getClaimName(), source);
      return;
    }
    Requests.requirePresent(request.getReplicationNamespace(), "replication_namespace");
    if (source.kind() != ContentSource.Kind.SNAPSHOT) {
      throw CsiException.invalidArgument(
          "a replica is pulled from a sync snapshot (snapshot_id), not from a volume");
    }
    replicas.require(
        request.getReplicationNamespace(),
        request.getReplicationName(),
        source.id(),
        CallerAddress.current());
  }

  /** The base of a delta, held here; null for a whole copy. */
  private String base(PullRequest request, ContentSource source, String what) {
    if (request.getBaseSnapshotId().isEmpty()) {
      return null;
    }
    if (source.kind() != ContentSource.Kind.SNAPSHOT) {
      throw CsiException.invalidArgument(
          "base_snapshot_id goes with a snapshot_id: a delta is between two snapshots");
    }
    String base = Requests.snapshotId(request.getBaseSnapshotId(), "base_snapshot_id");
    if (!images.holds(new ContentSource(ContentSource.Kind.SNAPSHOT, base))) {
      // Not NOT_FOUND: this node does hold the target, the puller must not look elsewhere.
      throw CsiException.failedPrecondition(
          "node %s holds %s but not base snapshot %s (deleted?): no delta can be made from it;"
              + " pull the snapshot in full",
          nodeId, what, base);
    }
    return base;
  }

  private static void closeQuietly(RangeCursor cursor) {
    if (cursor != null) {
      try {
        cursor.close();
      } catch (IOException e) {
        // read-only: nothing is lost
      }
    }
  }

  private static ContentSource source(PullRequest request) {
    return switch (request.getSourceCase()) {
      case VOLUME_ID ->
          new ContentSource(ContentSource.Kind.VOLUME, Requests.volumeId(request.getVolumeId()));
      case SNAPSHOT_ID ->
          new ContentSource(
              ContentSource.Kind.SNAPSHOT,
              Requests.snapshotId(request.getSnapshotId(), "snapshot_id"));
      case SOURCE_NOT_SET ->
          throw CsiException.invalidArgument("volume_id or snapshot_id is required");
    };
  }
}
