package io.thinvol.addons.job;

import io.thinvol.api.v1alpha1.ReclaimSpaceJob;

/** What happens to a job once it has a result (annotation schedules tidy theirs away). */
public interface FinishedJobs {

  FinishedJobs KEEP = (job, justNow) -> {};

  /**
   * @param justNow true right after the result was written, false when a finished job is seen again
   *     (for example after a restart)
   */
  void finished(ReclaimSpaceJob job, boolean justNow);
}
