package io.thinvol.addons.bench;

import io.thinvol.addons.call.ReclaimCaller;
import io.thinvol.addons.call.ReclaimService;
import io.thinvol.addons.call.Usage;
import io.thinvol.addons.resolve.DriverEndpoint;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The drivers of the benchmark: every call succeeds after {@value #TRIM_MS} ms and is recorded with
 * its volume and the time it was made, so the spread of runs can be shown.
 */
final class CountingCaller implements ReclaimCaller, AutoCloseable {

  private static final long TRIM_MS = 20;

  private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
  private final ConcurrentLinkedQueue<Call> calls = new ConcurrentLinkedQueue<>();

  private record Call(String volumeId, long at) {}

  @Override
  public CompletableFuture<Usage> call(
      DriverEndpoint endpoint, ReclaimService service, String volumeId, Duration timeout) {
    calls.add(new Call(volumeId, System.currentTimeMillis()));
    CompletableFuture<Usage> result = new CompletableFuture<>();
    timers.schedule(
        () -> result.complete(Usage.of(300L << 20, 44L << 20)), TRIM_MS, TimeUnit.MILLISECONDS);
    return result;
  }

  int calls() {
    return calls.size();
  }

  /** The calls made in [from, to): one line each, the volume and the time (epoch ms). */
  List<String> callsIn(long from, long to) {
    return calls.stream()
        .filter(c -> c.at() >= from && c.at() < to)
        .map(c -> c.volumeId() + " " + c.at())
        .toList();
  }

  @Override
  public void close() {
    timers.shutdownNow();
  }
}
