package io.thinvol.addons.job;

import io.thinvol.api.v1alpha1.ReclaimSpaceJobSpec;
import java.util.Optional;

/**
 * The CRD's rules, checked again: an API server that skipped the schema (or an object written
 * before a CRD upgrade) must get a clear failure, not a job that misbehaves.
 */
final class JobSpecProblems {

  private JobSpecProblems() {}

  static Optional<String> of(ReclaimSpaceJobSpec spec) {
    if (spec.getTarget() == null
        || spec.getTarget().getPersistentVolumeClaim() == null
        || spec.getTarget().getPersistentVolumeClaim().isBlank()) {
      return Optional.of("spec.target.persistentVolumeClaim is empty");
    }
    Integer backOffLimit = spec.getBackOffLimit();
    if (backOffLimit != null && (backOffLimit < 0 || backOffLimit > 60)) {
      return Optional.of("spec.backOffLimit is " + backOffLimit + "; it must be 0 to 60");
    }
    Long deadline = spec.getRetryDeadlineSeconds();
    if (deadline != null && (deadline < 0 || deadline > 1800)) {
      return Optional.of("spec.retryDeadlineSeconds is " + deadline + "; it must be 0 to 1800");
    }
    Long timeout = spec.getTimeout();
    if (timeout != null && timeout < 60) {
      return Optional.of("spec.timeout is " + timeout + " seconds; it must be at least 60");
    }
    return Optional.empty();
  }
}
