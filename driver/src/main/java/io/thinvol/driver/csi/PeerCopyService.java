package io.thinvol.driver.csi;

import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.thinvol.driver.core.CsiException;
import io.thinvol.driver.core.PointInTimeImages;
import io.thinvol.driver.peer.copy.ClaimSources;
import io.thinvol.driver.store.ContentSource;
import io.thinvol.peer.v1.PeerCopyGrpc;
import io.thinvol.peer.v1.PullChunk;
import io.thinvol.peer.v1.PullRequest;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.MDC;

/**
 * Copies of this node's volumes and snapshots for another node's driver, on the CSI-Addons TLS port
 * (whose interceptor admits only the drivers' own ServiceAccount to it). A copy is sent only for
 * the one source the request names, only when the claim it names asks for that source, and only
 * from a point in time: a snapshot, or a volume held still or copied first.
 */
public final class PeerCopyService extends PeerCopyGrpc.PeerCopyImplBase {

  // The longest the copy of an attached volume may take when the caller sets no deadline.
  private static final Duration COPY_LIMIT = Duration.ofHours(2);

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
  private final ClaimSources claims;
  private final String nodeId;

  public PeerCopyService(PointInTimeImages images, ClaimSources claims, String nodeId) {
    this.images = images;
    this.claims = claims;
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
      Requests.requirePresent(request.getClaimNamespace(), "claim_namespace");
      Requests.requirePresent(request.getClaimName(), "claim_name");
      claims.requireSourceOf(request.getClaimNamespace(), request.getClaimName(), source);
      Duration budget = Rpc.remaining(COPY_LIMIT);
      PullStream stream =
          new PullStream(
              what,
              nodeId,
              (ServerCallStreamObserver<PullChunk>) observer,
              () -> images.open(source, budget));
      try {
        senders.execute(stream);
      } catch (RejectedExecutionException e) {
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
