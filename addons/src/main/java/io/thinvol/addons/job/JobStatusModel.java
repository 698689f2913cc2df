package io.thinvol.addons.job;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.api.kube.Conditions;
import io.thinvol.api.v1alpha1.ReclaimSpaceJob;
import io.thinvol.api.v1alpha1.ReclaimSpaceJobStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The status of a ReclaimSpaceJob at each step, with its three conditions: {@code Running} while it
 * is not over, then {@code Succeeded} or {@code Failed} (a {@code Failed} left from earlier is set
 * False on success, never left standing).
 */
final class JobStatusModel {

  static final String RUNNING = "Running";
  static final String SUCCEEDED = "Succeeded";
  static final String FAILED = "Failed";

  private JobStatusModel() {}

  /** A copy of the job's status to change, so the original can be compared with it. */
  static ReclaimSpaceJobStatus copy(ReclaimSpaceJob job) {
    ReclaimSpaceJobStatus status =
        Serialization.clone(
            Optional.ofNullable(job.getStatus()).orElseGet(ReclaimSpaceJobStatus::new));
    if (status.getConditions() == null) {
      status.setConditions(new ArrayList<>());
    }
    status.setObservedGeneration(job.getMetadata().getGeneration());
    return status;
  }

  static void running(
      ReclaimSpaceJob job,
      ReclaimSpaceJobStatus status,
      String reason,
      String message,
      Instant now) {
    status.setMessage(message);
    List<Condition> previous = status.getConditions();
    long generation = generation(job);
    status.setConditions(
        List.of(
            Conditions.of(previous, RUNNING, "True", reason, message, generation, now),
            Conditions.of(previous, SUCCEEDED, "False", "NotFinished", "", generation, now),
            Conditions.of(previous, FAILED, "False", "NotFinished", "", generation, now)));
  }

  static void succeeded(
      ReclaimSpaceJob job, ReclaimSpaceJobStatus status, String message, Instant now) {
    end(job, status, SUCCEEDED, "Completed", "Reclaimed", message, now);
  }

  static void failed(
      ReclaimSpaceJob job,
      ReclaimSpaceJobStatus status,
      String reason,
      String message,
      Instant now) {
    end(job, status, FAILED, reason, reason, message, now);
  }

  /** The job is over: {@code result} is True, the other outcome False, Running False. */
  private static void end(
      ReclaimSpaceJob job,
      ReclaimSpaceJobStatus status,
      String result,
      String runningReason,
      String reason,
      String message,
      Instant now) {
    status.setResult(result);
    status.setMessage(message);
    status.setCompletionTime(now.toString());
    status.setNextAttemptTime(null);
    List<Condition> previous = status.getConditions();
    long generation = generation(job);
    boolean succeeded = SUCCEEDED.equals(result);
    status.setConditions(
        List.of(
            Conditions.of(previous, RUNNING, "False", runningReason, message, generation, now),
            Conditions.of(
                previous,
                SUCCEEDED,
                succeeded ? "True" : "False",
                reason,
                message,
                generation,
                now),
            Conditions.of(
                previous, FAILED, succeeded ? "False" : "True", reason, message, generation, now)));
  }

  private static long generation(ReclaimSpaceJob job) {
    return Optional.ofNullable(job.getMetadata().getGeneration()).orElse(0L);
  }

  /** Bytes as a Quantity in the largest binary unit that divides them exactly. */
  static Quantity bytes(long bytes) {
    String[] units = {"Gi", "Mi", "Ki"};
    long[] sizes = {1L << 30, 1L << 20, 1L << 10};
    for (int i = 0; i < units.length; i++) {
      if (bytes != 0 && bytes % sizes[i] == 0) {
        return new Quantity(bytes / sizes[i] + units[i]);
      }
    }
    return new Quantity(Long.toString(bytes));
  }
}
