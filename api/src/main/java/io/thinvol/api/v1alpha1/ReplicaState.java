package io.thinvol.api.v1alpha1;

/** What a VolumeReplication has reached, as CSI-Addons names it. */
public enum ReplicaState {
  /** The claim's copy is the primary and is replicated. */
  Primary,
  /** The switchover asked by replicationState: secondary is done. */
  Secondary,
  /** Not validated yet. */
  Unknown
}
