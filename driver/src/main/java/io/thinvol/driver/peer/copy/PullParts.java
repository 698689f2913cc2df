package io.thinvol.driver.peer.copy;

import io.grpc.CallOptions;
import io.grpc.ClientInterceptors;
import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.thinvol.driver.core.CsiException;
import io.thinvol.driver.peer.PeerClient;
import io.thinvol.driver.peer.PeerEndpoint;
import io.thinvol.peer.v1.PeerCopyGrpc;
import io.thinvol.peer.v1.PullChunk;
import io.thinvol.peer.v1.PullRequest;
import java.time.Duration;
import java.util.Iterator;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The parts of one pull as the puller reads them: the call made in a scope of its own (cancelled
 * when the sender goes silent, or when the copy is closed), the first part read unwatched, every
 * later wait watched ({@link StallWatch}) and heartbeats skipped; the peer's failures with its node
 * named.
 */
final class PullParts implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(PullParts.class);
  private static final MethodDescriptor.Marshaller<PullRequest> REQUEST =
      ProtoUtils.marshaller(PullRequest.getDefaultInstance());

  private final PeerEndpoint peer;
  private final ManagedChannel channel;
  private final Context.CancellableContext scope;
  private final Iterator<PullPart> chunks;
  private StallWatch watch;

  private PullParts(
      PeerEndpoint peer,
      ManagedChannel channel,
      Context.CancellableContext scope,
      Iterator<PullPart> chunks) {
    this.peer = peer;
    this.channel = channel;
    this.scope = scope;
    this.chunks = chunks;
  }

  /** Makes the call; its parts come as they are read. */
  static PullParts open(
      PeerClient client, PeerEndpoint peer, PullRequest request, Duration budget) {
    ManagedChannel channel = client.channel(peer);
    Context.CancellableContext scope = Context.current().withCancellation();
    Context outer = scope.attach();
    try {
      return new PullParts(
          peer,
          channel,
          scope,
          ClientCalls.blockingServerStreamingCall(
              ClientInterceptors.intercept(
                  channel, MetadataUtils.newAttachHeadersInterceptor(client.credentials())),
              PeerCopyGrpc.getPullMethod().toBuilder(REQUEST, new PullPartMarshaller()).build(),
              CallOptions.DEFAULT.withDeadlineAfter(budget.toMillis(), TimeUnit.MILLISECONDS),
              request));
    } catch (RuntimeException e) {
      scope.cancel(null);
      channel.shutdownNow();
      throw e;
    } finally {
      scope.detach(outer);
    }
  }

  /**
   * The first part, unwatched: a sender copies an attached volume before its header, for as long as
   * that takes. Null when the stream ended.
   */
  PullPart first() {
    return read();
  }

  /** From now on each wait for a part is watched; {@code heartbeat} zero: none is. */
  void watch(Duration heartbeat) {
    watch = new StallWatch(scope, heartbeat);
  }

  /** The next part, heartbeats skipped; null when the stream ended. */
  PullPart next() {
    for (; ; ) {
      PullPart part = read();
      if (part == null || part.partCase() != PullChunk.PartCase.HEARTBEAT) {
        return part;
      }
    }
  }

  /**
   * A stream the peer's side cut (its process stopped: HTTP/2 RST_STREAM, CANCELLED here) is
   * UNAVAILABLE, as a connection that broke is: the same request can be retried. So is one given up
   * for its silence.
   */
  private PullPart read() {
    StallWatch watching = watch;
    if (watching != null) {
      watching.waiting();
    }
    try {
      return chunks.hasNext() ? chunks.next() : null;
    } catch (StatusRuntimeException e) {
      if (watching != null && watching.stalled()) {
        log.warn(
            "the copy from {} stalled: nothing came for {} s, not even a heartbeat; giving it up",
            peer.describe(),
            watching.limit().toSeconds());
        throw new CsiException(
            Status.Code.UNAVAILABLE,
            String.format(
                "the copy from %s stalled: nothing came for %d s, not even the heartbeat it sends"
                    + " while it works; nothing was kept, a retry copies again",
                peer.describe(), watching.limit().toSeconds()));
      }
      Status status = e.getStatus();
      if (status.getCode() == Status.Code.CANCELLED) {
        status =
            Status.UNAVAILABLE.withDescription(
                "it stopped sending the copy (" + status.getDescription() + ")");
      }
      throw PeerClient.answered(peer, status);
    } finally {
      if (watching != null) {
        watching.arrived();
      }
    }
  }

  /** Cancels the call, if it still runs. */
  @Override
  public void close() {
    if (watch != null) {
      watch.close();
    }
    scope.cancel(null);
    channel.shutdownNow();
  }
}
