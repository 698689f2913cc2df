package io.thinvol.driver.csi;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.stub.ServerCallStreamObserver;
import io.thinvol.peer.v1.PullChunk;
import io.thinvol.peer.v1.PullHeader;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The sending side of a pull: heartbeats fill the silences while the stream works, and only then; a
 * wait for the transport ends once it is ready, even when gRPC's onReady never comes.
 */
class PullCallTest {

  private static final Duration BEAT = Duration.ofMillis(50);
  // Long enough for several heartbeats, had any been due
  private static final Duration SEVERAL_BEATS = BEAT.multipliedBy(6);

  private final Transport transport = new Transport();
  private final PullCall call = new PullCall(transport, 1 << 20, BEAT);

  @AfterEach
  void close() {
    call.close();
  }

  @Test
  void heartbeatsFillTheSilencesAfterTheHeaderWhileTheStreamWorksOnly() throws Exception {
    call.beginHeartbeats();
    pause(SEVERAL_BEATS);
    assertThat(transport.sent).as("none before the header").isEmpty();

    call.send(PullChunk.newBuilder().setHeader(PullHeader.getDefaultInstance()).build());
    await("a heartbeat while the stream works", () -> heartbeats() > 0);

    transport.ready = false;
    CompletableFuture<Boolean> waited = CompletableFuture.supplyAsync(() -> call.awaitReady(0));
    pause(BEAT); // the wait has begun
    int beforeWait = heartbeats();
    pause(SEVERAL_BEATS);
    assertThat(heartbeats()).as("none while the peer takes nothing").isEqualTo(beforeWait);
    transport.ready = true;
    transport.onReady.run();
    assertThat(waited.get(5, TimeUnit.SECONDS)).isTrue();

    call.complete();
    int atEnd = heartbeats();
    pause(SEVERAL_BEATS);
    assertThat(heartbeats()).as("none after the end").isEqualTo(atEnd);
    assertThat(transport.completed).isTrue();
  }

  @Test
  void aWaitForTheTransportEndsWhenItIsReadyEvenWithoutItsOnReady() throws Exception {
    transport.ready = false;
    CompletableFuture<Boolean> waited = CompletableFuture.supplyAsync(() -> call.awaitReady(0));
    pause(BEAT);
    assertThat(waited).isNotDone();
    transport.ready = true; // and no onReady
    assertThat(waited.get(PullCall.READY_RECHECK_MILLIS + 5_000, TimeUnit.MILLISECONDS)).isTrue();
  }

  @Test
  void noHeartbeatsWhenNoneWereAskedFor() throws Exception {
    PullCall silent = new PullCall(transport, 1 << 20, Duration.ZERO);
    silent.beginHeartbeats();
    silent.send(PullChunk.newBuilder().setHeader(PullHeader.getDefaultInstance()).build());
    pause(SEVERAL_BEATS);
    assertThat(heartbeats()).isZero();
    silent.close();
  }

  private int heartbeats() {
    return (int) transport.sent.stream().filter(PullChunk::hasHeartbeat).count();
  }

  private static void pause(Duration duration) throws InterruptedException {
    Thread.sleep(duration.toMillis());
  }

  private static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not seen in 10 s: " + what);
      }
      Thread.sleep(5);
    }
  }

  /** gRPC's side of the call: ready or not as the test says, recording what it is given. */
  private static final class Transport extends ServerCallStreamObserver<PullChunk> {
    final List<PullChunk> sent = new CopyOnWriteArrayList<>();
    volatile boolean ready = true;
    volatile boolean completed;
    volatile Runnable onReady = () -> {};

    @Override
    public void onNext(PullChunk value) {
      sent.add(value);
    }

    @Override
    public void onError(Throwable t) {
      completed = true;
    }

    @Override
    public void onCompleted() {
      completed = true;
    }

    @Override
    public boolean isReady() {
      return ready;
    }

    @Override
    public void setOnReadyHandler(Runnable onReadyHandler) {
      onReady = onReadyHandler;
    }

    @Override
    public void setOnReadyThreshold(int numBytes) {}

    @Override
    public boolean isCancelled() {
      return false;
    }

    @Override
    public void setOnCancelHandler(Runnable onCancelHandler) {}

    @Override
    public void setCompression(String compression) {}

    @Override
    public void disableAutoInboundFlowControl() {}

    @Override
    public void request(int count) {}

    @Override
    public void setMessageCompression(boolean enable) {}
  }
}
