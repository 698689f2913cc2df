package io.thinvol.driver.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The call threads of a gRPC server: as many as calls run at once, never more than its maximum. */
class HandlerPoolTest {

  private ThreadPoolExecutor pool;

  @AfterEach
  void stop() throws InterruptedException {
    pool.shutdownNow();
    pool.awaitTermination(10, TimeUnit.SECONDS);
  }

  @Test
  void callsOneAfterAnotherRunOnOneThread() throws Exception {
    pool = HandlerPool.create("test-handler", 16, 8);
    Set<String> threads = ConcurrentHashMap.newKeySet();
    for (int i = 0; i < 50; i++) {
      pool.submit(() -> threads.add(Thread.currentThread().getName())).get(10, TimeUnit.SECONDS);
      awaitIdle(pool);
    }
    assertThat(threads).hasSize(1);
    assertThat(pool.getLargestPoolSize()).isEqualTo(1);
  }

  @Test
  void concurrentCallsGetThreadsUpToTheMaximumThenWaitThenAreRefused() throws Exception {
    pool = HandlerPool.create("test-handler", 3, 2);
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch running = new CountDownLatch(3);
    Runnable blocking =
        () -> {
          running.countDown();
          try {
            release.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        };
    for (int i = 0; i < 3; i++) {
      pool.execute(blocking);
    }
    assertThat(running.await(10, TimeUnit.SECONDS)).as("three calls run at once").isTrue();
    Future<?> waiting1 = pool.submit(() -> {});
    Future<?> waiting2 = pool.submit(() -> {});
    assertThat(pool.getPoolSize()).isEqualTo(3);
    assertThat(pool.getQueue()).hasSize(2);
    assertThatThrownBy(() -> pool.execute(() -> {}))
        .isInstanceOf(RejectedExecutionException.class)
        .hasMessageContaining("all 3 test-handler threads busy and 2 calls waiting");

    release.countDown();
    waiting1.get(10, TimeUnit.SECONDS);
    waiting2.get(10, TimeUnit.SECONDS);
    assertThat(pool.getLargestPoolSize()).isEqualTo(3);
  }

  @Test
  void aStoppedPoolRefusesCalls() {
    pool = HandlerPool.create("test-handler", 2, 2);
    pool.shutdown();
    assertThatThrownBy(() -> pool.execute(() -> {})).isInstanceOf(RejectedExecutionException.class);
  }

  // A thread waits for work again shortly after its caller has the result: as with a client's
  // next call, which comes later than that.
  private static void awaitIdle(ThreadPoolExecutor pool) throws InterruptedException {
    LinkedTransferQueue<Runnable> queue = (LinkedTransferQueue<Runnable>) pool.getQueue();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!queue.hasWaitingConsumer() && System.nanoTime() < deadline) {
      Thread.sleep(1);
    }
  }
}
