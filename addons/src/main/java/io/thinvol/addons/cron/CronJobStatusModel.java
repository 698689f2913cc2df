package io.thinvol.addons.cron;

import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.api.kube.Conditions;
import io.thinvol.api.v1alpha1.ReclaimSpaceCronJob;
import io.thinvol.api.v1alpha1.ReclaimSpaceCronJobStatus;
import io.thinvol.api.v1alpha1.ReclaimSpaceJob;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The status of a ReclaimSpaceCronJob. */
final class CronJobStatusModel {

  static final String SCHEDULE_VALID = "ScheduleValid";

  private CronJobStatusModel() {}

  static ReclaimSpaceCronJobStatus copy(ReclaimSpaceCronJob cron) {
    ReclaimSpaceCronJobStatus status =
        Serialization.clone(
            Optional.ofNullable(cron.getStatus()).orElseGet(ReclaimSpaceCronJobStatus::new));
    if (status.getConditions() == null) {
      status.setConditions(new ArrayList<>());
    }
    status.setObservedGeneration(cron.getMetadata().getGeneration());
    return status;
  }

  static void scheduleValid(
      ReclaimSpaceCronJob cron,
      ReclaimSpaceCronJobStatus status,
      boolean valid,
      String message,
      Instant now) {
    status.setConditions(
        List.of(
            Conditions.of(
                status.getConditions(),
                SCHEDULE_VALID,
                valid ? "True" : "False",
                valid ? "Parsed" : "InvalidSchedule",
                message,
                Optional.ofNullable(cron.getMetadata().getGeneration()).orElse(0L),
                now)));
  }

  static ObjectReference reference(ReclaimSpaceJob job) {
    return new ObjectReferenceBuilder()
        .withApiVersion(job.getApiVersion())
        .withKind(job.getKind())
        .withName(job.getMetadata().getName())
        .withNamespace(job.getMetadata().getNamespace())
        .withUid(job.getMetadata().getUid())
        .build();
  }
}
