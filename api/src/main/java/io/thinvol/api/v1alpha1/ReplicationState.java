package io.thinvol.api.v1alpha1;

/**
 * What the admin asks of a VolumeReplication, with CSI-Addons' lowercase values (hence the
 * constants' case).
 */
@SuppressWarnings("java:S115")
public enum ReplicationState {
  /** The claim's current copy is the writable one, replicated to the standby. */
  primary,
  /** The claim's current copy steps down: a planned switchover to the standby. */
  secondary,
  /** The standby's replica is replaced by a whole new copy. */
  resync
}
