package io.thinvol.api.v1alpha1;

/** Where a VolumeMove stands. */
public enum MovePhase {
  /** Accepted; waiting for a target node or for a free copy slot on the source node. */
  Pending,
  /** Copying a snapshot of the claim to the target node while the application runs. */
  PreCopying,
  /** Pre-copied; the cut-over begins once no pod on any node uses the claim. */
  WaitingForCutOver,
  /** Copying the blocks changed since the pre-copy and rebinding the claim. */
  CuttingOver,
  /** The claim is bound to its new volume on the target node; the old one is deleted. */
  Succeeded,
  /** Ended without moving: the claim is bound to its old volume, whose data is unchanged. */
  Failed
}
