package io.thinvol.addons.job;

import io.grpc.Status;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.thinvol.addons.AddonsMetrics;
import io.thinvol.addons.AddonsSettings;
import io.thinvol.addons.call.ReclaimLimits;
import io.thinvol.addons.resolve.ReclaimProblem;
import io.thinvol.addons.resolve.TargetResolver;
import io.thinvol.addons.resolve.VolumeLocation;
import io.thinvol.api.Durations;
import io.thinvol.api.kube.Conditions;
import io.thinvol.api.kube.Events;
import io.thinvol.api.v1alpha1.ReclaimMode;
import io.thinvol.api.v1alpha1.ReclaimSpaceJob;
import io.thinvol.api.v1alpha1.ReclaimSpaceJobSpec;
import io.thinvol.api.v1alpha1.ReclaimSpaceJobStatus;
import io.thinvol.api.v1alpha1.ReclaimSteps;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One reconcile's change to a job: the new status and the Events to record once it is saved. */
final class JobStep {

  /** A queued job is woken when a slot frees; this is the fallback. */
  static final Duration QUEUED_RECHECK = Duration.ofSeconds(30);

  private static final Logger log = LoggerFactory.getLogger(JobStep.class);

  /** What a step works with, the same for every job. */
  record Services(
      TargetResolver resolver,
      InFlightCalls calls,
      ReclaimLimits limits,
      AddonsSettings settings,
      AddonsMetrics metrics,
      Events events) {}

  private final Services services;
  private final ReclaimSpaceJob job;
  private final ReclaimSpaceJobSpec spec;
  private final Instant now;
  private final ReclaimSpaceJobStatus status;
  private final List<Runnable> announcements = new ArrayList<>();
  private boolean startedCall;

  /**
   * A step's status and Events not saved yet: those of a step that started a call, held until the
   * call ends or {@code ReclaimSpaceJobReconciler#SAVE_PROGRESS_AFTER} passes.
   */
  record Unsaved(ReclaimSpaceJobStatus status, List<Runnable> announcements) {}

  /**
   * @param unsaved what an earlier step of this job left unsaved: this step goes on from it
   */
  JobStep(Services services, ReclaimSpaceJob job, Optional<Unsaved> unsaved, Instant now) {
    this.services = services;
    this.job = job;
    this.spec = Optional.ofNullable(job.getSpec()).orElseGet(ReclaimSpaceJobSpec::new);
    this.now = now;
    this.status = unsaved.map(Unsaved::status).orElseGet(() -> JobStatusModel.copy(job));
    status.setObservedGeneration(job.getMetadata().getGeneration());
    unsaved.ifPresent(u -> announcements.addAll(u.announcements()));
  }

  ReclaimSpaceJobStatus status() {
    return status;
  }

  /** Records the Events of this step, once its status is saved. */
  void announce() {
    announcements.forEach(Runnable::run);
  }

  /** Whether this step started a call to a driver. */
  boolean startedCall() {
    return startedCall;
  }

  Unsaved unsaved() {
    return new Unsaved(status, List.copyOf(announcements));
  }

  /**
   * @return when to look again without an event, or null
   */
  Duration advance(ResourceID id, Context<ReclaimSpaceJob> context) {
    if (status.getStartTime() == null) {
      status.setStartTime(now.toString());
      status.setRetries(0);
      announce(false, "Started", "reclaiming the space of PVC " + claim());
    }
    if (services.calls().running(uid())) {
      return null; // its completion wakes this job
    }
    Optional<AttemptResult> finished = services.calls().takeFinished(uid());
    if (finished.isPresent()) {
      return settle(finished.get());
    }
    if (status.getNextAttemptTime() != null) {
      Instant next = Instant.parse(status.getNextAttemptTime());
      if (next.isAfter(now)) {
        return Duration.between(now, next);
      }
    }
    Optional<String> invalid = JobSpecProblems.of(spec);
    if (invalid.isPresent()) {
      return fail("InvalidSpec", invalid.get());
    }
    VolumeLocation location;
    try {
      location = services.resolver().resolve(namespace(), claim(), spec.getTimeout());
    } catch (ReclaimProblem problem) {
      return problem.lasting()
          ? fail(problem.reason(), problem.getMessage())
          : retry(problem.reason(), problem.getMessage());
    }
    status.setNodeName(location.nodeName());
    ReclaimLimits.Admission admission =
        services
            .limits()
            .tryAdmit(
                id,
                location.nodeName(),
                location.volumeKey(),
                location.maxConcurrentPerNode(),
                created(),
                now,
                waiting -> stillRunning(context, waiting));
    if (!admission.admitted()) {
      if (!"Queued".equals(runningReason())) {
        announce(false, "Queued", admission.why());
      }
      JobStatusModel.running(job, status, "Queued", admission.why(), now);
      return QUEUED_RECHECK;
    }
    services.metrics().nodeUsed(location.nodeName());
    ReclaimMode mode = Optional.ofNullable(spec.getMode()).orElse(ReclaimMode.Auto);
    services.calls().start(id, uid(), location, mode, context);
    startedCall = true;
    status.setLastAttemptTime(now.toString());
    status.setNextAttemptTime(null);
    JobStatusModel.running(
        job,
        status,
        "Reclaiming",
        String.format(
            "reclaiming volume %s on node %s through driver pod %s (%s mode, timeout %s)",
            location.pvName(),
            location.nodeName(),
            location.endpoint(),
            mode,
            Durations.text(location.timeout())),
        now);
    log.info(
        "reclaiming volume {} of PVC {} on node {}",
        location.volumeId(),
        claim(),
        location.nodeName());
    return null;
  }

  private Duration settle(AttemptResult result) {
    ReclaimSteps steps = new ReclaimSteps();
    steps.setNode(result.node());
    steps.setController(result.controller());
    status.setSteps(steps);
    if (result.succeeded()) {
      result.usage().pre().ifPresent(b -> status.setPreUsage(JobStatusModel.bytes(b)));
      result.usage().post().ifPresent(b -> status.setPostUsage(JobStatusModel.bytes(b)));
      long reclaimed = result.usage().reclaimed().orElse(0);
      String message =
          result.usage().reclaimed().isPresent()
              ? "reclaimed " + JobStatusModel.bytes(reclaimed) + " on node " + status.getNodeName()
              : "reclaimed on node " + status.getNodeName() + " (the driver reported no usage)";
      if (result.usage().reclaimed().isPresent()) {
        status.setReclaimedSpace(JobStatusModel.bytes(reclaimed));
      }
      JobStatusModel.succeeded(job, status, message, now);
      announce(false, "Succeeded", message);
      services
          .metrics()
          .finished(
              namespace(), claim(), "Succeeded", "Reclaimed", reclaimed, now.getEpochSecond());
      log.info("{}", message);
      return null;
    }
    Status failure = result.failure();
    String message =
        result.failedService().rpc()
            + " on node "
            + status.getNodeName()
            + " failed: "
            + Errors.describe(failure);
    return Errors.lasting(failure)
        ? fail(Errors.reason(failure), message)
        : retry(Errors.reason(failure), message);
  }

  private Duration retry(String reason, String message) {
    Retries.Decision decision =
        Retries.decide(
            spec,
            Optional.ofNullable(status.getRetries()).orElse(0),
            Instant.parse(status.getStartTime()),
            now,
            services.settings(),
            message);
    if (decision instanceof Retries.GiveUp giveUp) {
      return fail(giveUp.reason(), giveUp.message());
    }
    Retries.Again again = (Retries.Again) decision;
    String in = Durations.text(again.delay());
    status.setRetries(again.retry());
    status.setNextAttemptTime(again.at().toString());
    JobStatusModel.running(job, status, reason, message + "; retrying at " + again.at(), now);
    announce(true, "Retrying", message + "; retry " + again.retry() + " in " + in);
    log.warn("{}; retry {} in {}", message, again.retry(), in);
    return again.delay();
  }

  private Duration fail(String reason, String message) {
    JobStatusModel.failed(job, status, reason, message, now);
    announce(true, "Failed", message);
    services.metrics().finished(namespace(), claim(), "Failed", reason, 0, now.getEpochSecond());
    log.warn("failed: {}", message);
    return null;
  }

  private void announce(boolean warning, String reason, String message) {
    announcements.add(
        () -> {
          if (warning) {
            services.events().warning(job, reason, message);
          } else {
            services.events().normal(job, reason, message);
          }
        });
  }

  private String runningReason() {
    return Conditions.find(status.getConditions(), JobStatusModel.RUNNING)
        .map(c -> c.getReason())
        .orElse("");
  }

  private String claim() {
    return spec.getTarget() == null ? null : spec.getTarget().getPersistentVolumeClaim();
  }

  private String namespace() {
    return job.getMetadata().getNamespace();
  }

  private String uid() {
    return job.getMetadata().getUid();
  }

  private Instant created() {
    String created = job.getMetadata().getCreationTimestamp();
    return created == null ? now : Instant.parse(created);
  }

  private static boolean stillRunning(Context<ReclaimSpaceJob> context, ResourceID job) {
    return context
        .getPrimaryCache()
        .get(job)
        .filter(j -> j.getStatus() == null || j.getStatus().getResult() == null)
        .isPresent();
  }
}
