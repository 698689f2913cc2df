package io.thinvol.api.v1alpha1;

/** How long a move keeps the old volume after the claim was rebound to the new one. */
public enum KeepSourceUntil {
  /** Until the claim is bound to the new volume. */
  Bound,
  /** Until a pod has mounted the new volume on the target node. */
  Mounted
}
