package io.thinvol.addons.job;

import io.grpc.Status;
import io.thinvol.addons.call.ReclaimService;
import io.thinvol.addons.call.Usage;
import io.thinvol.api.v1alpha1.ReclaimStep;

/**
 * What one attempt's calls answered.
 *
 * @param failure the last call's error, or null when the attempt succeeded
 * @param failedService the service that answered {@code failure}
 */
record AttemptResult(
    ReclaimStep node,
    ReclaimStep controller,
    Usage usage,
    Status failure,
    ReclaimService failedService) {

  static final String SUCCEEDED = "Succeeded";
  static final String FAILED = "Failed";
  static final String SKIPPED = "Skipped";

  /** An attempt that ended in an error no call answered (a bug or a cancelled call). */
  static AttemptResult unexpected(Throwable error) {
    return new AttemptResult(
        null, null, Usage.UNKNOWN, Status.fromThrowable(error), ReclaimService.NODE);
  }

  boolean succeeded() {
    return failure == null;
  }
}
