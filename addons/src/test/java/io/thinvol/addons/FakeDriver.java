package io.thinvol.addons;

import io.grpc.Status;
import io.thinvol.addons.call.ReclaimCaller;
import io.thinvol.addons.call.ReclaimService;
import io.thinvol.addons.call.Usage;
import io.thinvol.addons.resolve.DriverEndpoint;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A driver endpoint the tests script: answers per volume, a delay per call, and counts of the calls
 * in flight per driver pod and per volume (the highest seen is what the load tests assert).
 */
final class FakeDriver implements ReclaimCaller, AutoCloseable {

  record Call(String pod, ReclaimService service, String volumeId, Duration timeout, Instant at) {}

  /** One scripted answer. */
  record Answer(Usage usage, Status error, boolean hangs) {
    static Answer ok(long pre, long post) {
      return new Answer(Usage.of(pre, post), null, false);
    }

    static Answer fail(Status.Code code, String description) {
      return new Answer(null, code.toStatus().withDescription(description), false);
    }

    /** Never answers: the caller's deadline ends the call, as gRPC would. */
    static Answer hanging() {
      return new Answer(null, null, true);
    }
  }

  private final ScheduledExecutorService timers = Executors.newScheduledThreadPool(4);
  private final Map<String, Deque<Answer>> scripts = new ConcurrentHashMap<>();
  private final List<Call> calls = new CopyOnWriteArrayList<>();
  private final Map<String, AtomicInteger> inFlightByPod = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> inFlightByVolume = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> highestByPod = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> highestByVolume = new ConcurrentHashMap<>();
  private volatile Answer fallback = Answer.ok(300L << 20, 44L << 20);
  private volatile Duration delay = Duration.ZERO;

  /** Answers for a volume's calls, in order; the fallback answers after them. */
  void script(String volumeId, Answer... answers) {
    scripts.put(volumeId, new ArrayDeque<>(List.of(answers)));
  }

  void fallback(Answer answer) {
    fallback = answer;
  }

  void delay(Duration delay) {
    this.delay = delay;
  }

  List<Call> calls() {
    return List.copyOf(calls);
  }

  List<Call> calls(String volumeId) {
    return calls.stream().filter(c -> c.volumeId().equals(volumeId)).toList();
  }

  int highestInFlightOnPod(String pod) {
    return highestByPod.getOrDefault(pod, new AtomicInteger()).get();
  }

  int highestInFlightOnAnyVolume() {
    return highestByVolume.values().stream().mapToInt(AtomicInteger::get).max().orElse(0);
  }

  @Override
  public CompletableFuture<Usage> call(
      DriverEndpoint endpoint, ReclaimService service, String volumeId, Duration timeout) {
    calls.add(new Call(endpoint.podName(), service, volumeId, timeout, Instant.now()));
    enter(endpoint.podName(), inFlightByPod, highestByPod);
    enter(volumeId, inFlightByVolume, highestByVolume);
    Deque<Answer> script = scripts.get(volumeId);
    Answer answer = script == null || script.isEmpty() ? fallback : script.poll();
    CompletableFuture<Usage> result = new CompletableFuture<>();
    Duration wait = answer.hangs() ? timeout : delay;
    timers.schedule(
        () -> {
          inFlightByPod.get(endpoint.podName()).decrementAndGet();
          inFlightByVolume.get(volumeId).decrementAndGet();
          if (answer.hangs()) {
            result.completeExceptionally(
                Status.DEADLINE_EXCEEDED
                    .withDescription("deadline exceeded after " + timeout)
                    .asRuntimeException());
          } else if (answer.error() != null) {
            result.completeExceptionally(answer.error().asRuntimeException());
          } else {
            result.complete(answer.usage());
          }
        },
        wait.toMillis(),
        TimeUnit.MILLISECONDS);
    return result;
  }

  private static void enter(
      String key, Map<String, AtomicInteger> now, Map<String, AtomicInteger> highest) {
    int count = now.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
    highest.computeIfAbsent(key, k -> new AtomicInteger()).accumulateAndGet(count, Math::max);
  }

  @Override
  public void close() {
    timers.shutdownNow();
  }
}
