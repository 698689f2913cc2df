package io.thinvol.addons;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.Operator;
import io.thinvol.addons.call.ReclaimCaller;
import io.thinvol.addons.call.ReclaimLimits;
import io.thinvol.addons.cron.ReclaimSpaceCronJobReconciler;
import io.thinvol.addons.job.JobsByClaim;
import io.thinvol.addons.job.ReclaimSpaceJobReconciler;
import io.thinvol.addons.resolve.ResolverCaches;
import io.thinvol.addons.resolve.TargetResolver;
import io.thinvol.addons.schedule.ScheduleReconciler;
import io.thinvol.addons.schedule.ScheduledJobs;
import io.thinvol.api.kube.Events;
import java.time.Clock;

/** The space-reclaim reconcilers, registered in the operator's process. */
public final class Addons implements AutoCloseable {

  private final AddonsMetrics metrics;
  private final EventQueue eventQueue;

  private Addons(AddonsMetrics metrics, EventQueue eventQueue) {
    this.metrics = metrics;
    this.eventQueue = eventQueue;
  }

  /** Registers the reconcilers; call before {@link Operator#start()}. */
  public static Addons register(
      Operator operator,
      KubernetesClient client,
      AddonsSettings settings,
      ReclaimCaller caller,
      Clock clock) {
    return register(operator, client, settings, caller, clock, new EventQueue());
  }

  /** As {@link #register}, recording the jobs' Events through {@code eventQueue}. */
  static Addons register(
      Operator operator,
      KubernetesClient client,
      AddonsSettings settings,
      ReclaimCaller caller,
      Clock clock,
      EventQueue eventQueue) {
    ReclaimLimits limits = new ReclaimLimits();
    AddonsMetrics metrics = new AddonsMetrics(limits);
    Events events = new Events(client, clock);
    JobsByClaim jobsByClaim = new JobsByClaim();
    ScheduledJobs scheduledJobs = new ScheduledJobs(client, events, jobsByClaim);
    ResolverCaches caches = new ResolverCaches(settings.namespace());
    operator.register(
        new ReclaimSpaceJobReconciler(
            new TargetResolver(caches),
            caches,
            jobsByClaim,
            caller,
            limits,
            settings,
            metrics,
            events,
            eventQueue,
            scheduledJobs,
            clock));
    operator.register(new ReclaimSpaceCronJobReconciler(events, clock, settings.staggerWindow()));
    operator.register(
        new ScheduleReconciler(scheduledJobs, events, metrics, clock, settings.staggerWindow()));
    return new Addons(metrics, eventQueue);
  }

  public AddonsMetrics metrics() {
    return metrics;
  }

  /** Records the Events still queued; call after {@link Operator#stop()}. */
  @Override
  public void close() {
    eventQueue.close();
  }
}
