package io.thinvol.addons.bench;

import io.thinvol.addons.call.ReclaimCaller;
import io.thinvol.addons.call.ReclaimService;
import io.thinvol.addons.call.Usage;
import io.thinvol.addons.resolve.DriverEndpoint;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The drivers of the benchmark: every call succeeds after {@value #TRIM_MS} ms and is counted with
 * the time it was made, so the spread of runs can be shown.
 */
final class CountingCaller implements ReclaimCaller, AutoCloseable {

  private static final long TRIM_MS = 20;

  private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
  private final ConcurrentLinkedQueue<Long> callTimes = new ConcurrentLinkedQueue<>();

  @Override
  public CompletableFuture<Usage> call(
      DriverEndpoint endpoint, ReclaimService service, String volumeId, Duration timeout) {
    callTimes.add(System.currentTimeMillis());
    CompletableFuture<Usage> result = new CompletableFuture<>();
    timers.schedule(
        () -> result.complete(Usage.of(300L << 20, 44L << 20)), TRIM_MS, TimeUnit.MILLISECONDS);
    return result;
  }

  int calls() {
    return callTimes.size();
  }

  /**
   * The calls in [from, to): how many, how many in each of {@code buckets} equal slices, and the
   * most in one second.
   */
  String spread(long from, long to, int buckets) {
    long[] slices = new long[buckets];
    java.util.Map<Long, Integer> perSecond = new java.util.HashMap<>();
    int inWindow = 0;
    for (long at : callTimes) {
      if (at >= from && at < to) {
        inWindow++;
        slices[(int) ((at - from) * buckets / (to - from))]++;
        perSecond.merge(at / 1000, 1, Integer::sum);
      }
    }
    int peak = perSecond.values().stream().mapToInt(Integer::intValue).max().orElse(0);
    return "in-window=" + inWindow + " per-tenth=" + Arrays.toString(slices) + " peak/s=" + peak;
  }

  @Override
  public void close() {
    timers.shutdownNow();
  }
}
