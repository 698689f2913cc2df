package io.thinvol.api.v1alpha1;

/** What a ReclaimSpaceCronJob does when a run is due while the previous job still runs. */
public enum ConcurrencyPolicy {
  Forbid,
  Replace
}
