package io.thinvol.addons;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The queue that records Events off the reconcile threads: in order, none lost, and an Event the
 * API server refuses or holds does not hold back the reconcile that posted it.
 */
class EventQueueTest {

  private final List<String> recorded = new CopyOnWriteArrayList<>();

  @Test
  void recordsEventsInTheOrderTheyWerePosted() {
    EventQueue queue = new EventQueue();
    IntStream.range(0, 200).forEach(i -> queue.post(() -> recorded.add("event " + i)));

    queue.close();

    assertThat(recorded)
        .containsExactlyElementsOf(IntStream.range(0, 200).mapToObj(i -> "event " + i).toList());
  }

  @Test
  void anEventThatFailsDoesNotStopTheOnesAfterIt() {
    EventQueue queue = new EventQueue();
    queue.post(() -> recorded.add("Started"));
    queue.post(
        () -> {
          throw new IllegalStateException("the API server refused the Event");
        });
    queue.post(() -> recorded.add("Succeeded"));

    queue.close();

    assertThat(recorded).containsExactly("Started", "Succeeded");
  }

  @Test
  void postingDoesNotWaitForAnEventTheApiServerHolds() throws Exception {
    EventQueue queue = new EventQueue();
    CountDownLatch held = new CountDownLatch(1);
    queue.post(() -> await(held));

    // the reconcile thread's side: posting returns while the first Event is still in flight
    CompletableFuture<Void> posted =
        CompletableFuture.runAsync(() -> queue.post(() -> recorded.add("Succeeded")));

    posted.get(5, TimeUnit.SECONDS);
    assertThat(recorded).isEmpty();
    held.countDown();
    queue.close();
    assertThat(recorded).containsExactly("Succeeded");
  }

  @Test
  void aFullQueueMakesThePosterWaitRatherThanDropAnEvent() throws Exception {
    EventQueue queue = new EventQueue(2, Duration.ofSeconds(10));
    CountDownLatch held = new CountDownLatch(1);
    queue.post(() -> await(held)); // taken by the recorder
    queue.post(() -> recorded.add("1"));
    queue.post(() -> recorded.add("2")); // the queue is full

    CompletableFuture<Void> third =
        CompletableFuture.runAsync(() -> queue.post(() -> recorded.add("3")));

    Thread.sleep(200); // the poster must still be waiting for room
    assertThat(third).isNotDone();
    held.countDown();
    third.get(5, TimeUnit.SECONDS);
    queue.close();
    assertThat(recorded).containsExactly("1", "2", "3");
  }

  @Test
  void closingRecordsWhatIsQueuedAndLaterEventsOnTheCallersThread() {
    EventQueue queue = new EventQueue();
    queue.post(
        () -> {
          sleep(100);
          recorded.add("queued");
        });

    queue.close();
    assertThat(recorded).containsExactly("queued");

    queue.post(() -> recorded.add("after close"));
    assertThat(recorded).containsExactly("queued", "after close");
  }

  @Test
  void closingGivesUpOnAnEventHeldPastTheFlushTimeout() {
    EventQueue queue = new EventQueue(16, Duration.ofMillis(200));
    CountDownLatch never = new CountDownLatch(1);
    queue.post(() -> await(never));
    queue.post(() -> recorded.add("behind the held one"));

    long start = System.nanoTime();
    queue.close();

    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    assertThat(recorded).isEmpty();
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
