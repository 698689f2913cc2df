package io.thinvol.addons.job;

import io.fabric8.kubernetes.client.utils.Serialization;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.PrimaryUpdateAndCacheUtils;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.thinvol.addons.AddonsMetrics;
import io.thinvol.addons.AddonsSettings;
import io.thinvol.addons.EventQueue;
import io.thinvol.addons.call.ReclaimCaller;
import io.thinvol.addons.call.ReclaimLimits;
import io.thinvol.addons.resolve.ResolverCaches;
import io.thinvol.addons.resolve.TargetResolver;
import io.thinvol.api.kube.Events;
import io.thinvol.api.v1alpha1.ReclaimSpaceJob;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.MDC;

/**
 * Runs a ReclaimSpaceJob: resolves its PVC to the driver pod holding the volume, waits for a slot
 * (one call per volume, {@code maxConcurrentPerNode} per node), calls the driver without holding a
 * reconcile thread, and retries failures with exponential backoff within {@code backOffLimit} and
 * {@code retryDeadlineSeconds} (counted from the start). Calls in flight live in memory: after a
 * restart the attempt is made again, and the driver answers ABORTED while an old one still runs.
 *
 * <p>The status of a step that started a call is saved with the call's result when the call ends
 * within {@link #SAVE_PROGRESS_AFTER}, else then: a short reclaim is one status write, not two. A
 * step's Events are queued once its status is saved ({@link EventQueue}): their requests do not
 * hold the reconcile thread.
 */
@ControllerConfiguration(name = "reclaimspacejob")
public class ReclaimSpaceJobReconciler implements Reconciler<ReclaimSpaceJob> {

  /**
   * How long a started call's progress ("Reclaiming") may stay unsaved: a call that ends sooner is
   * saved once, with its result; a longer one shows its progress after this.
   */
  static final Duration SAVE_PROGRESS_AFTER = Duration.ofSeconds(1);

  private final JobStep.Services services;
  private final ResolverCaches caches;
  private final JobsByClaim jobsByClaim;
  private final Clock clock;
  private final FinishedJobs finishedJobs;
  private final EventQueue eventQueue;

  /**
   * @param caches what {@code resolver} reads, filled by this controller's informers
   * @param jobsByClaim an index of this controller's cache, for the annotation schedules
   */
  public ReclaimSpaceJobReconciler(
      TargetResolver resolver,
      ResolverCaches caches,
      JobsByClaim jobsByClaim,
      ReclaimCaller caller,
      ReclaimLimits limits,
      AddonsSettings settings,
      AddonsMetrics metrics,
      Events events,
      EventQueue eventQueue,
      FinishedJobs finishedJobs,
      Clock clock) {
    this.services =
        new JobStep.Services(
            resolver, new InFlightCalls(caller, limits), limits, settings, metrics, events);
    this.eventQueue = eventQueue;
    this.caches = caches;
    this.jobsByClaim = jobsByClaim;
    this.finishedJobs = finishedJobs;
    this.clock = clock;
  }

  @Override
  public List<EventSource<?, ReclaimSpaceJob>> prepareEventSources(
      EventSourceContext<ReclaimSpaceJob> context) {
    jobsByClaim.index(context.getPrimaryCache());
    List<EventSource<?, ReclaimSpaceJob>> sources =
        new ArrayList<>(caches.eventSources(context, jobsByClaim::ids));
    sources.add(services.calls().wakeUps());
    return sources;
  }

  @Override
  public UpdateControl<ReclaimSpaceJob> reconcile(
      ReclaimSpaceJob job, Context<ReclaimSpaceJob> context) {
    ResourceID id = ResourceID.fromResource(job);
    MDC.put(
        "reclaimspacejob", job.getMetadata().getNamespace() + "/" + job.getMetadata().getName());
    try {
      if (job.getStatus() != null && job.getStatus().getResult() != null) {
        services.limits().withdraw(id);
        finishedJobs.finished(job, false);
        return UpdateControl.noUpdate();
      }
      String uid = job.getMetadata().getUid();
      JobStep step = new JobStep(services, job, services.calls().takeUnsaved(uid), clock.instant());
      Duration wait = step.advance(id, context);
      if (step.startedCall()) {
        services.calls().holdUnsaved(uid, step.unsaved());
        return UpdateControl.<ReclaimSpaceJob>noUpdate().rescheduleAfter(SAVE_PROGRESS_AFTER);
      }
      if (!Serialization.asJson(step.status()).equals(Serialization.asJson(job.getStatus()))) {
        ReclaimSpaceJob written =
            PrimaryUpdateAndCacheUtils.updateStatusAndCacheResource(
                job,
                context,
                fresh -> {
                  fresh.setStatus(step.status());
                  return fresh;
                });
        eventQueue.post(step::announce);
        if (step.status().getResult() != null) {
          finishedJobs.finished(written, true);
        }
      }
      UpdateControl<ReclaimSpaceJob> control = UpdateControl.noUpdate();
      return wait == null ? control : control.rescheduleAfter(wait);
    } finally {
      MDC.remove("reclaimspacejob");
    }
  }
}
