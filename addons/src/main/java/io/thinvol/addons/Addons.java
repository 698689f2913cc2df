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

/**
 * The space-reclaim reconcilers, registered in the operator's process: those of ReclaimSpaceJobs
 * (with the annotation schedules, which make jobs) and those of ReclaimSpaceCronJobs, each part
 * registered once the kinds it needs are served.
 */
public final class Addons implements AutoCloseable {

  private final AddonsSettings settings;
  private final ReclaimCaller caller;
  private final Clock clock;
  private final EventQueue eventQueue;
  private final ReclaimLimits limits = new ReclaimLimits();
  private final AddonsMetrics metrics = new AddonsMetrics(limits);
  private final Events events;
  private final JobsByClaim jobsByClaim = new JobsByClaim();
  private final ScheduledJobs scheduledJobs;
  private final ResolverCaches caches;

  private Addons(
      KubernetesClient client,
      AddonsSettings settings,
      ReclaimCaller caller,
      Clock clock,
      EventQueue eventQueue) {
    this.settings = settings;
    this.caller = caller;
    this.clock = clock;
    this.eventQueue = eventQueue;
    this.events = new Events(client, clock);
    this.scheduledJobs = new ScheduledJobs(client, events, jobsByClaim);
    this.caches = new ResolverCaches(settings.namespace());
  }

  /** The addons, none registered yet: see {@link #registerJobs} and {@link #registerCronJobs}. */
  public static Addons of(
      KubernetesClient client, AddonsSettings settings, ReclaimCaller caller, Clock clock) {
    return new Addons(client, settings, caller, clock, new EventQueue());
  }

  /** Registers every reconciler; call before {@link Operator#start()}. */
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
    Addons addons = new Addons(client, settings, caller, clock, eventQueue);
    addons.registerJobs(operator);
    addons.registerCronJobs(operator);
    return addons;
  }

  /**
   * The ReclaimSpaceJob reconciler and the annotation schedules, which make ReclaimSpaceJobs; call
   * before {@code operator} starts.
   */
  public void registerJobs(Operator operator) {
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
    operator.register(
        new ScheduleReconciler(scheduledJobs, events, metrics, clock, settings.staggerWindow()));
  }

  /**
   * The ReclaimSpaceCronJob reconciler, which makes ReclaimSpaceJobs; call before {@code operator}
   * starts.
   */
  public void registerCronJobs(Operator operator) {
    operator.register(new ReclaimSpaceCronJobReconciler(events, clock, settings.staggerWindow()));
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
