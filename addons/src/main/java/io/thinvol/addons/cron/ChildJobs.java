package io.thinvol.addons.cron;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.api.v1alpha1.ReclaimSpaceCronJob;
import io.thinvol.api.v1alpha1.ReclaimSpaceJob;
import io.thinvol.api.v1alpha1.ReclaimSpaceJobSpec;
import io.thinvol.api.v1alpha1.ReclaimSpaceJobTemplate;
import io.thinvol.api.v1alpha1.TemplateMetadata;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The jobs a cron job creates: named per scheduled time, owned by the cron job. */
final class ChildJobs {

  static final String SCHEDULED_AT = "reclaimspace.thinvol.io/scheduled-at";
  private static final int MAX_NAME = 253;

  private ChildJobs() {}

  /** {@code <cronjob>-<unix seconds>}: a given run always gets the same name. */
  static String name(ReclaimSpaceCronJob cron, Instant scheduled) {
    String suffix = "-" + scheduled.getEpochSecond();
    String base = cron.getMetadata().getName();
    if (base.length() + suffix.length() > MAX_NAME) {
      base = base.substring(0, MAX_NAME - suffix.length());
    }
    return base + suffix;
  }

  static ReclaimSpaceJob desired(ReclaimSpaceCronJob cron, Instant scheduled) {
    ReclaimSpaceJobTemplate template = cron.getSpec().getJobTemplate();
    ObjectMeta meta = new ObjectMeta();
    meta.setName(name(cron, scheduled));
    meta.setNamespace(cron.getMetadata().getNamespace());
    Optional<TemplateMetadata> templateMeta = Optional.ofNullable(template.getMetadata());
    meta.setLabels(templateMeta.map(TemplateMetadata::getLabels).map(HashMap::new).orElse(null));
    Map<String, String> annotations =
        templateMeta
            .map(TemplateMetadata::getAnnotations)
            .map(HashMap::new)
            .orElseGet(HashMap::new);
    annotations.put(SCHEDULED_AT, scheduled.toString());
    meta.setAnnotations(annotations);
    meta.setOwnerReferences(
        List.of(
            new OwnerReferenceBuilder()
                .withApiVersion(cron.getApiVersion())
                .withKind(cron.getKind())
                .withName(cron.getMetadata().getName())
                .withUid(cron.getMetadata().getUid())
                .withController(true)
                .withBlockOwnerDeletion(true)
                .build()));
    ReclaimSpaceJob job = new ReclaimSpaceJob();
    job.setMetadata(meta);
    job.setSpec(Serialization.clone(template.getSpec()));
    if (job.getSpec() == null) {
      job.setSpec(new ReclaimSpaceJobSpec());
    }
    return job;
  }

  static boolean running(ReclaimSpaceJob job) {
    return job.getStatus() == null || job.getStatus().getResult() == null;
  }

  static boolean hasResult(ReclaimSpaceJob job, String result) {
    return job.getStatus() != null && result.equals(job.getStatus().getResult());
  }

  /** The finished jobs with {@code result} beyond the newest {@code keep}. */
  static List<ReclaimSpaceJob> beyondHistory(List<ReclaimSpaceJob> jobs, String result, int keep) {
    List<ReclaimSpaceJob> finished =
        jobs.stream()
            .filter(j -> hasResult(j, result))
            .sorted(Comparator.comparing(ChildJobs::scheduledAt).reversed())
            .toList();
    return finished.size() <= keep ? List.of() : finished.subList(keep, finished.size());
  }

  static Instant scheduledAt(ReclaimSpaceJob job) {
    return Optional.ofNullable(job.getMetadata().getAnnotations())
        .map(a -> a.get(SCHEDULED_AT))
        .map(Instant::parse)
        .orElseGet(
            () ->
                Optional.ofNullable(job.getMetadata().getCreationTimestamp())
                    .map(Instant::parse)
                    .orElse(Instant.EPOCH));
  }
}
