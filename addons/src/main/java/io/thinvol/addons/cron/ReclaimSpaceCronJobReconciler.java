package io.thinvol.addons.cron;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.PrimaryUpdateAndCacheUtils;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.Mappers;
import io.thinvol.api.Durations;
import io.thinvol.api.kube.Events;
import io.thinvol.api.v1alpha1.ConcurrencyPolicy;
import io.thinvol.api.v1alpha1.ReclaimSpaceCronJob;
import io.thinvol.api.v1alpha1.ReclaimSpaceCronJobSpec;
import io.thinvol.api.v1alpha1.ReclaimSpaceCronJobStatus;
import io.thinvol.api.v1alpha1.ReclaimSpaceJob;
import java.net.HttpURLConnection;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Creates a cron job's ReclaimSpaceJobs at its (staggered) times, applies the concurrency policy,
 * {@code suspend} and {@code startingDeadlineSeconds}, and keeps the job history within its limits.
 * Not generation-aware: a touch on the object makes it look at the clock again.
 */
@ControllerConfiguration(name = "reclaimspacecronjob", generationAwareEventProcessing = false)
public class ReclaimSpaceCronJobReconciler implements Reconciler<ReclaimSpaceCronJob> {

  private static final Logger log = LoggerFactory.getLogger(ReclaimSpaceCronJobReconciler.class);

  private final Events events;
  private final Clock clock;
  private final Duration staggerWindow;

  /** The last run each cron job announced as skipped or waiting, so it is said once. */
  private final Map<String, String> announced = new ConcurrentHashMap<>();

  public ReclaimSpaceCronJobReconciler(Events events, Clock clock, Duration staggerWindow) {
    this.events = events;
    this.clock = clock;
    this.staggerWindow = staggerWindow;
  }

  @Override
  public List<EventSource<?, ReclaimSpaceCronJob>> prepareEventSources(
      EventSourceContext<ReclaimSpaceCronJob> context) {
    return List.of(
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(ReclaimSpaceJob.class, ReclaimSpaceCronJob.class)
                .withSecondaryToPrimaryMapper(
                    Mappers.fromOwnerReferences(ReclaimSpaceCronJob.class))
                .build(),
            context));
  }

  @Override
  public UpdateControl<ReclaimSpaceCronJob> reconcile(
      ReclaimSpaceCronJob cron, Context<ReclaimSpaceCronJob> context) {
    MDC.put(
        "reclaimspacecronjob",
        cron.getMetadata().getNamespace() + "/" + cron.getMetadata().getName());
    try {
      Instant now = clock.instant();
      ReclaimSpaceCronJobStatus status = CronJobStatusModel.copy(cron);
      List<Runnable> announcements = new ArrayList<>();
      Duration wait = plan(cron, context, status, now, announcements);
      if (!Serialization.asJson(status).equals(Serialization.asJson(cron.getStatus()))) {
        PrimaryUpdateAndCacheUtils.updateStatusAndCacheResource(
            cron,
            context,
            fresh -> {
              fresh.setStatus(status);
              return fresh;
            });
      }
      announcements.forEach(Runnable::run);
      UpdateControl<ReclaimSpaceCronJob> control = UpdateControl.noUpdate();
      return wait == null ? control : control.rescheduleAfter(wait);
    } finally {
      MDC.remove("reclaimspacecronjob");
    }
  }

  private Duration plan(
      ReclaimSpaceCronJob cron,
      Context<ReclaimSpaceCronJob> context,
      ReclaimSpaceCronJobStatus status,
      Instant now,
      List<Runnable> announcements) {
    ReclaimSpaceCronJobSpec spec = cron.getSpec();
    StaggeredSchedule schedule;
    try {
      schedule =
          StaggeredSchedule.of(
              CronSchedule.parse(spec.getSchedule()), uid(cron), staggerWindow, now);
    } catch (IllegalArgumentException e) {
      boolean wasValid =
          status.getConditions().stream().noneMatch(c -> "False".equals(c.getStatus()));
      CronJobStatusModel.scheduleValid(cron, status, false, e.getMessage(), now);
      status.setNextScheduleTime(null);
      if (wasValid) {
        announcements.add(() -> events.warning(cron, "InvalidSchedule", e.getMessage()));
      }
      return null; // a spec change brings it back
    }
    CronJobStatusModel.scheduleValid(
        cron,
        status,
        true,
        "runs at " + spec.getSchedule() + " + " + Durations.text(schedule.offset()),
        now);

    List<ReclaimSpaceJob> children =
        new ArrayList<>(context.getSecondaryResources(ReclaimSpaceJob.class));
    children.sort(Comparator.comparing(ChildJobs::scheduledAt));
    tidyHistory(cron, children, context.getClient());
    List<ReclaimSpaceJob> active = children.stream().filter(ChildJobs::running).toList();
    status.setActive(
        active.isEmpty() ? null : CronJobStatusModel.reference(active.get(active.size() - 1)));
    children.stream()
        .filter(j -> ChildJobs.hasResult(j, "Succeeded"))
        .map(j -> j.getStatus().getCompletionTime())
        .filter(t -> t != null)
        .max(Comparator.comparing(Instant::parse))
        .ifPresent(status::setLastSuccessfulTime);

    if (Boolean.TRUE.equals(spec.getSuspend())) {
      status.setNextScheduleTime(null);
      return null; // resuming is a spec change
    }
    Instant since =
        Optional.ofNullable(status.getLastScheduleTime())
            .map(Instant::parse)
            .orElseGet(() -> created(cron, now));
    CronPlanner.Plan plan =
        CronPlanner.plan(schedule, since, now, spec.getStartingDeadlineSeconds());
    status.setNextScheduleTime(plan.next().map(Instant::toString).orElse(null));
    Duration untilNext =
        plan.next().map(t -> Duration.between(now, t).plusMillis(100)).orElse(null);
    if (plan.due().isEmpty()) {
      return untilNext;
    }
    Instant due = plan.due().get();
    if (plan.tooLate()) {
      announceOnce(
          cron,
          announcements,
          "missed:" + due,
          true,
          "MissedSchedule",
          String.format(
              "the run of %s started %s late, past startingDeadlineSeconds %d; skipped%s",
              due,
              Durations.text(Duration.between(due, now).truncatedTo(ChronoUnit.SECONDS)),
              spec.getStartingDeadlineSeconds(),
              plan.missed() > 0 ? " (" + missedText(plan.missed()) + " before it)" : ""));
      return untilNext;
    }
    if (!active.isEmpty()) {
      ConcurrencyPolicy policy =
          Optional.ofNullable(spec.getConcurrencyPolicy()).orElse(ConcurrencyPolicy.Forbid);
      if (policy == ConcurrencyPolicy.Forbid) {
        announceOnce(
            cron,
            announcements,
            "waiting:" + due,
            false,
            "RunWaiting",
            "the run of "
                + due
                + " waits: job "
                + active.get(0).getMetadata().getName()
                + " still runs (concurrencyPolicy Forbid)");
        return untilNext; // the active job's end wakes this cron job
      }
      for (ReclaimSpaceJob job : active) {
        context.getClient().resource(job).delete();
        announcements.add(
            () ->
                events.normal(
                    cron,
                    "Replaced",
                    "deleted job "
                        + job.getMetadata().getName()
                        + " to start the run of "
                        + due
                        + " (concurrencyPolicy Replace)"));
      }
    }
    ReclaimSpaceJob child = ChildJobs.desired(cron, due);
    try {
      context.getClient().resource(child).create();
    } catch (KubernetesClientException e) {
      if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
        throw e;
      }
      // created by an earlier reconcile whose status write was lost: the name is per run
    }
    status.setLastScheduleTime(due.toString());
    status.setActive(CronJobStatusModel.reference(child));
    String name = child.getMetadata().getName();
    announcements.add(
        () ->
            events.normal(
                cron,
                "SuccessfulCreate",
                "created job "
                    + name
                    + " for the run of "
                    + due
                    + (plan.missed() > 0 ? " (" + missedText(plan.missed()) + " before it)" : "")));
    log.info("created job {} for the run of {}", name, due);
    return untilNext;
  }

  /** Deletes finished jobs beyond the history limits and drops them from {@code children}. */
  private static void tidyHistory(
      ReclaimSpaceCronJob cron, List<ReclaimSpaceJob> children, KubernetesClient client) {
    int successful = Optional.ofNullable(cron.getSpec().getSuccessfulJobsHistoryLimit()).orElse(3);
    int failed = Optional.ofNullable(cron.getSpec().getFailedJobsHistoryLimit()).orElse(1);
    List<ReclaimSpaceJob> old =
        new ArrayList<>(ChildJobs.beyondHistory(children, "Succeeded", successful));
    old.addAll(ChildJobs.beyondHistory(children, "Failed", failed));
    for (ReclaimSpaceJob job : old) {
      log.debug("deleting job {}, beyond the history limit", job.getMetadata().getName());
      client.resource(job).delete();
      children.remove(job);
    }
  }

  private void announceOnce(
      ReclaimSpaceCronJob cron,
      List<Runnable> announcements,
      String key,
      boolean warning,
      String reason,
      String message) {
    if (key.equals(announced.put(uid(cron), key))) {
      return;
    }
    announcements.add(
        () -> {
          if (warning) {
            events.warning(cron, reason, message);
          } else {
            events.normal(cron, reason, message);
          }
        });
  }

  private static String missedText(int missed) {
    return missed >= CronPlanner.MISSED_COUNT_LIMIT
        ? "over " + CronPlanner.MISSED_COUNT_LIMIT + " earlier runs were missed"
        : missed + " earlier run(s) missed";
  }

  private static String uid(ReclaimSpaceCronJob cron) {
    return cron.getMetadata().getUid();
  }

  private static Instant created(ReclaimSpaceCronJob cron, Instant now) {
    return Optional.ofNullable(cron.getMetadata().getCreationTimestamp())
        .map(Instant::parse)
        .orElse(now);
  }
}
