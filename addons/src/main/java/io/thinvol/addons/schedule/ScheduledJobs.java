package io.thinvol.addons.schedule;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.thinvol.addons.job.FinishedJobs;
import io.thinvol.addons.job.JobsByClaim;
import io.thinvol.api.kube.Events;
import io.thinvol.api.v1alpha1.ReclaimMode;
import io.thinvol.api.v1alpha1.ReclaimSpaceJob;
import io.thinvol.api.v1alpha1.ReclaimSpaceJobSpec;
import io.thinvol.api.v1alpha1.ReclaimTarget;
import java.net.HttpURLConnection;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ReclaimSpaceJobs of annotation schedules: created at each run, owned by their PVC, reported
 * as Events on the PVC, and deleted once they succeed, so no object per PVC stays behind (a failed
 * one stays for {@code kubectl describe} until the next run).
 */
public final class ScheduledJobs implements FinishedJobs {

  private static final Logger log = LoggerFactory.getLogger(ScheduledJobs.class);

  public static final String SCHEDULED_LABEL = "reclaimspace.thinvol.io/scheduled";
  static final String SCHEDULED_AT = "reclaimspace.thinvol.io/scheduled-at";
  static final String SOURCE = "reclaimspace.thinvol.io/schedule-source";

  /**
   * On the PVC: the scheduled time of its latest run, so that an operator that starts after a pause
   * knows which runs it missed (the jobs of successful runs are deleted).
   */
  public static final String LAST_RUN = "reclaimspace.thinvol.io/last-scheduled-run";

  private static final int MAX_NAME = 253;

  private final KubernetesClient client;
  private final Events events;
  private final JobsByClaim jobsByClaim;

  public ScheduledJobs(KubernetesClient client, Events events, JobsByClaim jobsByClaim) {
    this.client = client;
    this.events = events;
    this.jobsByClaim = jobsByClaim;
  }

  /**
   * Starts the run of {@code due} for a PVC, unless its previous scheduled job still runs.
   *
   * @return the job's name, or empty when the run was skipped
   */
  Optional<String> start(PersistentVolumeClaim claim, Instant due, SchedulePolicy.Level source) {
    String namespace = claim.getMetadata().getNamespace();
    String claimName = claim.getMetadata().getName();
    List<ReclaimSpaceJob> earlier =
        jobsByClaim.of(namespace, claimName).stream()
            .filter(j -> "true".equals(labels(j).get(SCHEDULED_LABEL)))
            .toList();
    Optional<ReclaimSpaceJob> running =
        earlier.stream()
            .filter(j -> j.getStatus() == null || j.getStatus().getResult() == null)
            .findFirst();
    if (running.isPresent()) {
      events.normal(
          claim,
          "ReclaimSkipped",
          "the run of "
              + due
              + " is skipped: the previous one (ReclaimSpaceJob "
              + running.get().getMetadata().getName()
              + ") still runs");
      return Optional.empty();
    }
    earlier.forEach(j -> client.resource(j).delete());
    ReclaimSpaceJob job = job(claim, due, source);
    try {
      client.resource(job).create();
    } catch (KubernetesClientException e) {
      if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
        throw e;
      }
    }
    recordRun(claim, due);
    log.info(
        "started scheduled reclaim {} of PVC {}/{}",
        job.getMetadata().getName(),
        namespace,
        claimName);
    return Optional.of(job.getMetadata().getName());
  }

  private void recordRun(PersistentVolumeClaim claim, Instant due) {
    // Patched through the claim at hand: by name alone, fabric8 first GETs the object (a live
    // read per run, 5,000 a period at 5,000 claims).
    client
        .persistentVolumeClaims()
        .resource(claim)
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"metadata\":{\"annotations\":{\"" + LAST_RUN + "\":\"" + due + "\"}}}");
  }

  /** The scheduled time of the claim's latest run, if one was recorded and can be read. */
  static Optional<Instant> lastRun(PersistentVolumeClaim claim) {
    String value =
        Optional.ofNullable(claim.getMetadata().getAnnotations())
            .map(a -> a.get(LAST_RUN))
            .orElse(null);
    try {
      return Optional.ofNullable(value).map(Instant::parse);
    } catch (DateTimeParseException e) {
      return Optional.empty(); // edited by hand: treated as never run
    }
  }

  static ReclaimSpaceJob job(
      PersistentVolumeClaim claim, Instant due, SchedulePolicy.Level source) {
    String suffix = "-reclaim-" + due.getEpochSecond();
    String base = claim.getMetadata().getName();
    if (base.length() + suffix.length() > MAX_NAME) {
      base = base.substring(0, MAX_NAME - suffix.length());
    }
    ReclaimSpaceJob job = new ReclaimSpaceJob();
    job.getMetadata().setName(base + suffix);
    job.getMetadata().setNamespace(claim.getMetadata().getNamespace());
    job.getMetadata().setLabels(Map.of(SCHEDULED_LABEL, "true"));
    job.getMetadata().setAnnotations(Map.of(SCHEDULED_AT, due.toString(), SOURCE, source.name()));
    job.getMetadata()
        .setOwnerReferences(
            List.of(
                new OwnerReferenceBuilder()
                    .withApiVersion("v1")
                    .withKind("PersistentVolumeClaim")
                    .withName(claim.getMetadata().getName())
                    .withUid(claim.getMetadata().getUid())
                    .build()));
    ReclaimSpaceJobSpec spec = new ReclaimSpaceJobSpec();
    spec.setTarget(new ReclaimTarget(claim.getMetadata().getName()));
    spec.setBackOffLimit(6);
    spec.setRetryDeadlineSeconds(600L);
    spec.setMode(ReclaimMode.Auto);
    job.setSpec(spec);
    return job;
  }

  @Override
  public void finished(ReclaimSpaceJob job, boolean justNow) {
    if (!"true".equals(labels(job).get(SCHEDULED_LABEL))) {
      return;
    }
    boolean succeeded = "Succeeded".equals(job.getStatus().getResult());
    if (justNow) {
      claimOf(job)
          .ifPresent(
              claim -> {
                String message =
                    job.getStatus().getMessage()
                        + " (ReclaimSpaceJob "
                        + job.getMetadata().getName()
                        + ")";
                if (succeeded) {
                  events.normal(claim, "SpaceReclaimed", message);
                } else {
                  events.warning(claim, "ReclaimFailed", message);
                }
              });
    }
    if (succeeded) {
      client.resource(job).delete();
    }
  }

  private static Map<String, String> labels(ReclaimSpaceJob job) {
    return Optional.ofNullable(job.getMetadata().getLabels()).orElse(Map.of());
  }

  /** Enough of the owning PVC to put an Event on it. */
  private static Optional<HasMetadata> claimOf(ReclaimSpaceJob job) {
    return Optional.ofNullable(job.getMetadata().getOwnerReferences()).orElse(List.of()).stream()
        .filter(o -> "PersistentVolumeClaim".equals(o.getKind()))
        .findFirst()
        .map(
            (OwnerReference owner) ->
                new PersistentVolumeClaimBuilder()
                    .withNewMetadata()
                    .withName(owner.getName())
                    .withNamespace(job.getMetadata().getNamespace())
                    .withUid(owner.getUid())
                    .endMetadata()
                    .build());
  }
}
