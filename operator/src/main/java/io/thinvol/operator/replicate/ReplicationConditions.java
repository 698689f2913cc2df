package io.thinvol.operator.replicate;

/** CSI-Addons' condition types of a VolumeReplication. */
final class ReplicationConditions {

  static final String VALIDATED = "Validated";
  static final String REPLICATING = "Replicating";
  static final String RESYNCING = "Resyncing";
  static final String COMPLETED = "Completed";
  static final String DEGRADED = "Degraded";

  private ReplicationConditions() {}
}
