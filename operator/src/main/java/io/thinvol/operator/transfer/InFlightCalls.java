package io.thinvol.operator.transfer;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.inbound.SimpleInboundEventSource;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Driver calls that may take minutes (a snapshot, a copy), held by key without a reconcile thread:
 * when one ends, the resource that started it is reconciled to take the result. After a restart a
 * call is asked again: the drivers answer what they made first (every such call is idempotent by
 * name). Moves and replications hold theirs here alike.
 *
 * @param <R> the kind of resource the calls are for
 */
public final class InFlightCalls<R extends HasMetadata> {

  private final SimpleInboundEventSource<R> wakeUps;
  private final Map<String, CompletableFuture<?>> calls = new ConcurrentHashMap<>();

  public InFlightCalls(String name) {
    this.wakeUps = new SimpleInboundEventSource<>(name);
  }

  /** Wakes a resource when a call of it ends (register it with the resource's controller). */
  public SimpleInboundEventSource<R> wakeUps() {
    return wakeUps;
  }

  /**
   * The call's result once it ended, empty while it runs; starts it when none is in flight. A
   * success is kept until {@link #forget} (a later step reads it again); a failure is handed out
   * once, so that the next look asks again.
   */
  @SuppressWarnings("unchecked")
  public <T> Optional<CompletableFuture<T>> call(
      ResourceID resource, String key, Supplier<CompletableFuture<T>> start) {
    CompletableFuture<T> call = (CompletableFuture<T>) calls.get(key);
    if (call == null) {
      CompletableFuture<T> started = start.get();
      calls.put(key, started);
      started.whenComplete((result, error) -> wakeUps.propagateEvent(resource));
      return started.isDone() ? call(resource, key, start) : Optional.empty();
    }
    if (!call.isDone()) {
      return Optional.empty();
    }
    if (call.isCompletedExceptionally()) {
      calls.remove(key);
    }
    return Optional.of(call);
  }

  /** The successful result held under {@code key}, if any. */
  @SuppressWarnings("unchecked")
  public <T> Optional<T> succeeded(String key) {
    CompletableFuture<?> call = calls.get(key);
    return call != null && call.isDone() && !call.isCompletedExceptionally()
        ? Optional.of((T) call.join())
        : Optional.empty();
  }

  /** Whether a call under {@code key} is running in this process. */
  public boolean runs(String key) {
    CompletableFuture<?> call = calls.get(key);
    return call != null && !call.isDone();
  }

  /** Whether any call whose key starts with {@code prefix} is running in this process. */
  public boolean anyRuns(String prefix) {
    return calls.entrySet().stream()
        .anyMatch(e -> e.getKey().startsWith(prefix) && !e.getValue().isDone());
  }

  /** Forgets the calls whose keys start with {@code prefix} (they ended or were given up). */
  public void forget(String prefix) {
    calls.keySet().removeIf(key -> key.startsWith(prefix));
  }

  /**
   * Gives up the calls whose keys start with {@code prefix}: they end at once, cancelled, and are
   * forgotten; what they may have made is dropped by name as after a restart.
   */
  public void cancel(String prefix) {
    calls
        .entrySet()
        .removeIf(
            e -> {
              if (!e.getKey().startsWith(prefix)) {
                return false;
              }
              e.getValue().cancel(true);
              return true;
            });
  }

  /** Wakes {@code resource} now (a slot freed, a node came back). */
  public void wake(ResourceID resource) {
    wakeUps.propagateEvent(resource);
  }
}
