package io.thinvol.addons.job;

import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.inbound.SimpleInboundEventSource;
import io.thinvol.addons.call.ReclaimCaller;
import io.thinvol.addons.call.ReclaimLimits;
import io.thinvol.addons.resolve.VolumeLocation;
import io.thinvol.api.v1alpha1.ReclaimMode;
import io.thinvol.api.v1alpha1.ReclaimSpaceJob;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The calls to drivers in flight, by job UID, held without a reconcile thread: when one ends, its
 * slot is released (waking the jobs queued for it) and its job is reconciled to record the result.
 */
final class InFlightCalls {

  private final Attempts attempts;
  private final ReclaimLimits limits;
  private final SimpleInboundEventSource<ReclaimSpaceJob> wakeUps =
      new SimpleInboundEventSource<>("reclaim-calls");
  private final Map<String, CompletableFuture<AttemptResult>> calls = new ConcurrentHashMap<>();
  private final Map<String, JobStep.Unsaved> unsaved = new ConcurrentHashMap<>();

  InFlightCalls(ReclaimCaller caller, ReclaimLimits limits) {
    this.attempts = new Attempts(caller);
    this.limits = limits;
  }

  /** The event source that wakes a job when its call ends or a slot frees. */
  EventSource<?, ReclaimSpaceJob> wakeUps() {
    return wakeUps;
  }

  boolean running(String uid) {
    CompletableFuture<AttemptResult> call = calls.get(uid);
    return call != null && !call.isDone();
  }

  /** The result of a job's call that has ended, taken out; empty when there is none. */
  Optional<AttemptResult> takeFinished(String uid) {
    CompletableFuture<AttemptResult> call = calls.get(uid);
    if (call == null || !call.isDone()) {
      return Optional.empty();
    }
    calls.remove(uid);
    return Optional.of(call.join());
  }

  /** Holds what the step that started a job's call has not saved, until the next step. */
  void holdUnsaved(String uid, JobStep.Unsaved step) {
    unsaved.put(uid, step);
  }

  /** What a job's last step left unsaved, taken out; empty when there is none. */
  Optional<JobStep.Unsaved> takeUnsaved(String uid) {
    return Optional.ofNullable(unsaved.remove(uid));
  }

  /** Starts an admitted job's attempt. */
  void start(
      ResourceID id,
      String uid,
      VolumeLocation location,
      ReclaimMode mode,
      Context<ReclaimSpaceJob> context) {
    CompletableFuture<AttemptResult> started = new CompletableFuture<>();
    calls.put(uid, started);
    var jobs = context.getPrimaryCache();
    attempts
        .run(location, mode)
        .whenComplete(
            (result, error) -> {
              started.complete(result != null ? result : AttemptResult.unexpected(error));
              limits.release(id).forEach(wakeUps::propagateEvent);
              boolean deleted =
                  jobs.get(id).filter(j -> uid.equals(j.getMetadata().getUid())).isEmpty();
              if (deleted) {
                calls.remove(uid); // no reconcile will come for it
                unsaved.remove(uid);
              } else {
                wakeUps.propagateEvent(id);
              }
            });
  }
}
