package io.thinvol.addons.job;

import io.fabric8.kubernetes.client.utils.Serialization;
import io.grpc.Status;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.PrimaryUpdateAndCacheUtils;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.inbound.SimpleInboundEventSource;
import io.thinvol.addons.AddonsMetrics;
import io.thinvol.addons.AddonsSettings;
import io.thinvol.addons.call.ReclaimCaller;
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
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Runs a ReclaimSpaceJob: resolves its PVC to the driver pod holding the volume, waits for a slot
 * (one call per volume, {@code maxConcurrentPerNode} per node), calls the driver without holding a
 * reconcile thread, and retries failures with exponential backoff within {@code backOffLimit} and
 * {@code retryDeadlineSeconds} (counted from the start). Calls in flight live in memory: after a
 * restart the attempt is made again, and the driver answers ABORTED while an old one still runs.
 */
@ControllerConfiguration(name = "reclaimspacejob")
public class ReclaimSpaceJobReconciler implements Reconciler<ReclaimSpaceJob> {

  private static final Logger log = LoggerFactory.getLogger(ReclaimSpaceJobReconciler.class);

  /** A queued job is woken when a slot frees; this is the fallback. */
  static final Duration QUEUED_RECHECK = Duration.ofSeconds(30);

  private final TargetResolver resolver;
  private final Attempts attempts;
  private final ReclaimLimits limits;
  private final AddonsSettings settings;
  private final AddonsMetrics metrics;
  private final Events events;
  private final Clock clock;
  private final FinishedJobs finishedJobs;
  private final SimpleInboundEventSource<ReclaimSpaceJob> wakeUps =
      new SimpleInboundEventSource<>("reclaim-calls");
  private final Map<String, CompletableFuture<AttemptResult>> inFlight = new ConcurrentHashMap<>();

  public ReclaimSpaceJobReconciler(
      TargetResolver resolver,
      ReclaimCaller caller,
      ReclaimLimits limits,
      AddonsSettings settings,
      AddonsMetrics metrics,
      Events events,
      FinishedJobs finishedJobs,
      Clock clock) {
    this.resolver = resolver;
    this.attempts = new Attempts(caller);
    this.limits = limits;
    this.settings = settings;
    this.metrics = metrics;
    this.events = events;
    this.finishedJobs = finishedJobs;
    this.clock = clock;
  }

  @Override
  public List<EventSource<?, ReclaimSpaceJob>> prepareEventSources(
      EventSourceContext<ReclaimSpaceJob> context) {
    return List.of(wakeUps);
  }

  @Override
  public UpdateControl<ReclaimSpaceJob> reconcile(
      ReclaimSpaceJob job, Context<ReclaimSpaceJob> context) {
    ResourceID id = ResourceID.fromResource(job);
    MDC.put(
        "reclaimspacejob", job.getMetadata().getNamespace() + "/" + job.getMetadata().getName());
    try {
      if (job.getStatus() != null && job.getStatus().getResult() != null) {
        limits.withdraw(id);
        finishedJobs.finished(job, false);
        return UpdateControl.noUpdate();
      }
      Step step = new Step(job, clock.instant());
      Duration wait = step.advance(id, context);
      if (!Serialization.asJson(step.status).equals(Serialization.asJson(job.getStatus()))) {
        ReclaimSpaceJob written =
            PrimaryUpdateAndCacheUtils.updateStatusAndCacheResource(
                job,
                context,
                fresh -> {
                  fresh.setStatus(step.status);
                  return fresh;
                });
        step.announcements.forEach(Runnable::run);
        if (step.status.getResult() != null) {
          finishedJobs.finished(written, true);
        }
      }
      UpdateControl<ReclaimSpaceJob> control = UpdateControl.noUpdate();
      return wait == null ? control : control.rescheduleAfter(wait);
    } finally {
      MDC.remove("reclaimspacejob");
    }
  }

  /** One reconcile's change to a job: the new status and the Events to record once it is saved. */
  private final class Step {
    private final ReclaimSpaceJob job;
    private final ReclaimSpaceJobSpec spec;
    private final Instant now;
    private final ReclaimSpaceJobStatus status;
    private final List<Runnable> announcements = new ArrayList<>();

    Step(ReclaimSpaceJob job, Instant now) {
      this.job = job;
      this.spec = Optional.ofNullable(job.getSpec()).orElseGet(ReclaimSpaceJobSpec::new);
      this.now = now;
      this.status = JobStatusModel.copy(job);
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
      CompletableFuture<AttemptResult> call = inFlight.get(uid());
      if (call != null && !call.isDone()) {
        return null; // its completion wakes this job
      }
      if (call != null) {
        inFlight.remove(uid());
        return settle(call.join());
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
        location = resolver.resolve(namespace(), claim(), spec.getTimeout());
      } catch (ReclaimProblem problem) {
        return problem.lasting()
            ? fail(problem.reason(), problem.getMessage())
            : retry(problem.reason(), problem.getMessage());
      }
      status.setNodeName(location.nodeName());
      ReclaimLimits.Admission admission =
          limits.tryAdmit(
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
      metrics.nodeUsed(location.nodeName());
      ReclaimMode mode = Optional.ofNullable(spec.getMode()).orElse(ReclaimMode.Auto);
      CompletableFuture<AttemptResult> started = new CompletableFuture<>();
      String uid = uid();
      inFlight.put(uid, started);
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
                  inFlight.remove(uid); // no reconcile will come for it
                } else {
                  wakeUps.propagateEvent(id);
                }
              });
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
                ? "reclaimed "
                    + JobStatusModel.bytes(reclaimed)
                    + " on node "
                    + status.getNodeName()
                : "reclaimed on node " + status.getNodeName() + " (the driver reported no usage)";
        if (result.usage().reclaimed().isPresent()) {
          status.setReclaimedSpace(JobStatusModel.bytes(reclaimed));
        }
        JobStatusModel.succeeded(job, status, message, now);
        announce(false, "Succeeded", message);
        metrics.finished(
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
              settings,
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
      metrics.finished(namespace(), claim(), "Failed", reason, 0, now.getEpochSecond());
      log.warn("failed: {}", message);
      return null;
    }

    private void announce(boolean warning, String reason, String message) {
      announcements.add(
          () -> {
            if (warning) {
              events.warning(job, reason, message);
            } else {
              events.normal(job, reason, message);
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
  }

  private static boolean stillRunning(Context<ReclaimSpaceJob> context, ResourceID job) {
    return context
        .getPrimaryCache()
        .get(job)
        .filter(j -> j.getStatus() == null || j.getStatus().getResult() == null)
        .isPresent();
  }
}
