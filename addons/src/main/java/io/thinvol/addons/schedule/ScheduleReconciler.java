package io.thinvol.addons.schedule;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.thinvol.addons.AddonsMetrics;
import io.thinvol.addons.cron.CronPlanner;
import io.thinvol.addons.cron.CronSchedule;
import io.thinvol.addons.cron.StaggeredSchedule;
import io.thinvol.api.kube.Events;
import io.thinvol.api.v1alpha1.StorageBackend;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Annotation schedules without an object per PVC: every bound PVC of a thinvol StorageClass is
 * reconciled, its schedule chosen by {@link SchedulePolicy} and its next run kept as the
 * reconciler's own timer (held in memory, a few dozen bytes per PVC). Changes to the PVC, its
 * Namespace, StorageClass or StorageBackend re-reconcile the PVCs they touch at once. Each run's
 * time is recorded on the PVC ({@link ScheduledJobs#LAST_RUN}); after a restart the runs missed
 * while no operator ran are made up once, the latest only, as {@link CronPlanner} does for cron
 * jobs.
 */
@ControllerConfiguration(name = "reclaimspace-schedules", generationAwareEventProcessing = false)
public class ScheduleReconciler implements Reconciler<PersistentVolumeClaim> {

  private static final Logger log = LoggerFactory.getLogger(ScheduleReconciler.class);
  private static final Duration PURGE_EVERY = Duration.ofMinutes(10);

  private final ScheduledJobs jobs;
  private final Events events;
  private final Clock clock;
  private final Duration staggerWindow;
  private final ScheduledClaims scheduled;
  private final ScheduleInputs inputs = new ScheduleInputs();
  private final UpstreamAnnotations upstream;
  private volatile Instant lastPurge = Instant.MIN;

  public ScheduleReconciler(
      ScheduledJobs jobs,
      Events events,
      AddonsMetrics metrics,
      Clock clock,
      Duration staggerWindow) {
    this.jobs = jobs;
    this.events = events;
    this.scheduled = new ScheduledClaims(metrics);
    this.clock = clock;
    this.staggerWindow = staggerWindow;
    this.upstream = new UpstreamAnnotations(events);
  }

  @Override
  public List<EventSource<?, PersistentVolumeClaim>> prepareEventSources(
      EventSourceContext<PersistentVolumeClaim> context) {
    return inputs.eventSources(context);
  }

  @Override
  public UpdateControl<PersistentVolumeClaim> reconcile(
      PersistentVolumeClaim claim, Context<PersistentVolumeClaim> context) {
    String uid = claim.getMetadata().getUid();
    MDC.put("pvc", claim.getMetadata().getNamespace() + "/" + claim.getMetadata().getName());
    try {
      Instant now = clock.instant();
      purgeDeleted(context, now);
      Optional<StorageBackend> backend = inputs.backendOf(claim);
      if (backend.isEmpty()) {
        scheduled.untrack(uid);
        return UpdateControl.noUpdate();
      }
      upstream.check(claim);
      SchedulePolicy.Decision decision =
          SchedulePolicy.decide(
              claim.getMetadata().getAnnotations(),
              inputs.namespaceAnnotations(claim),
              inputs.storageClassAnnotations(claim),
              Optional.ofNullable(backend.get().getSpec())
                  .map(s -> s.getReclaimSpace())
                  .map(r -> r.getSchedule())
                  .orElse(null));
      if (decision.disabledBy().isPresent()) {
        if (scheduled.untrack(uid) != null) {
          events.normal(
              claim,
              "ReclaimDisabled",
              "scheduled space reclaim is off: "
                  + SchedulePolicy.ENABLE
                  + "=false on the "
                  + decision.disabledBy().get());
        }
        return UpdateControl.noUpdate();
      }
      return schedule(claim, decision, now);
    } finally {
      MDC.remove("pvc");
    }
  }

  private UpdateControl<PersistentVolumeClaim> schedule(
      PersistentVolumeClaim claim, SchedulePolicy.Decision decision, Instant now) {
    String uid = claim.getMetadata().getUid();
    for (SchedulePolicy.Candidate candidate : decision.candidates()) {
      CronSchedule cron;
      try {
        cron = CronSchedule.parse(candidate.schedule());
      } catch (IllegalArgumentException e) {
        if (scheduled.firstWarningOf(uid, candidate.schedule())) {
          events.warning(
              claim,
              "InvalidSchedule",
              "the "
                  + SchedulePolicy.SCHEDULE
                  + " annotation on the "
                  + candidate.level()
                  + " is ignored: "
                  + e.getMessage());
        }
        continue;
      }
      StaggeredSchedule staggered = StaggeredSchedule.of(cron, uid, staggerWindow, now);
      ScheduledClaims.Tracked before = scheduled.get(uid);
      boolean same = before != null && before.schedule().equals(candidate.schedule());
      // First seen by this process: runs missed since the claim's last one (while no operator
      // ran) are made up once, the latest only, as for cron jobs. A new schedule starts now.
      Optional<Instant> lastRun =
          before == null
              ? ScheduledJobs.lastRun(claim).filter(t -> t.isBefore(now))
              : Optional.empty();
      Instant since = same ? before.handled() : lastRun.orElse(now);
      CronPlanner.Plan plan = CronPlanner.plan(staggered, since, now, null);
      Optional<Instant> due = plan.due();
      due.ifPresent(
          run -> {
            if (lastRun.isPresent()) {
              events.normal(
                  claim,
                  "MissedRunStarted",
                  (plan.missed() + 1)
                      + " scheduled run(s) passed while no operator ran (the last run was "
                      + lastRun.get()
                      + "); the latest, of "
                      + run
                      + ", starts now");
            }
            jobs.start(claim, run, candidate.level());
          });
      Instant handled = due.orElse(since);
      Instant next = plan.next().orElse(null);
      scheduled.track(claim, candidate, handled, next);
      if (before != null && (!same || before.level() != candidate.level())) {
        events.normal(
            claim,
            "ReclaimScheduled",
            "space is reclaimed on \""
                + candidate.schedule()
                + "\" (from the "
                + candidate.level()
                + "); next run at "
                + next);
      }
      UpdateControl<PersistentVolumeClaim> control = UpdateControl.noUpdate();
      return next == null
          ? control
          : control.rescheduleAfter(Duration.between(now, next).plusMillis(100));
    }
    scheduled.untrack(uid);
    return UpdateControl.noUpdate();
  }

  /** A deleted PVC is not reconciled (there is no finalizer): forget it from time to time. */
  private void purgeDeleted(Context<PersistentVolumeClaim> context, Instant now) {
    if (lastPurge.plus(PURGE_EVERY).isAfter(now)) {
      return;
    }
    lastPurge = now;
    Set<String> present =
        context
            .getPrimaryCache()
            .list()
            .map(c -> c.getMetadata().getUid())
            .collect(Collectors.toSet());
    scheduled.retainOnly(present);
    upstream.retainOnly(present);
    log.debug("{} PVCs on a schedule", scheduled.size());
  }

  /** PVCs on a schedule now. */
  public int scheduledCount() {
    return scheduled.size();
  }
}
