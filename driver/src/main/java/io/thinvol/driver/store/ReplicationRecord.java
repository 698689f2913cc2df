package io.thinvol.driver.store;

/**
 * What {@code meta.json} says about a replicated volume: which replication (the VolumeReplication's
 * uid), the volume's role in it, and its sync point.
 *
 * @param stale a former primary demoted after its claim failed over: it may hold writes no replica
 *     has, so it is never a sync's base and never deleted as an older replica
 * @param resync a secondary marked (ResyncVolume) to be replaced by a fresh replica
 * @param syncSnapshotId the primary's snapshot this volume equals (a replica), or the primary's
 *     last acknowledged sync point (the base of its next delta); null before the first sync
 * @param syncTime when that snapshot was asked for (ISO-8601), null before the first sync
 */
public record ReplicationRecord(
    String id,
    ReplicaRole role,
    boolean stale,
    boolean resync,
    String syncSnapshotId,
    String syncTime,
    long syncDurationMillis,
    long syncBytes) {

  /** A primary newly enabled, with no sync yet. */
  public static ReplicationRecord primary(String id) {
    return new ReplicationRecord(id, ReplicaRole.PRIMARY, false, false, null, null, 0, 0);
  }

  /** A replica of sync point {@code snapshotId}. */
  public static ReplicationRecord replica(String id, String snapshotId, String syncTime) {
    return new ReplicationRecord(
        id, ReplicaRole.SECONDARY, false, false, snapshotId, syncTime, 0, 0);
  }

  public boolean secondary() {
    return role == ReplicaRole.SECONDARY;
  }

  public ReplicationRecord withRole(ReplicaRole newRole, boolean nowStale) {
    return new ReplicationRecord(
        id, newRole, nowStale, false, syncSnapshotId, syncTime, syncDurationMillis, syncBytes);
  }

  public ReplicationRecord withResync() {
    return new ReplicationRecord(
        id, role, stale, true, syncSnapshotId, syncTime, syncDurationMillis, syncBytes);
  }

  public ReplicationRecord synced(String snapshotId, String time, long durationMillis, long bytes) {
    return new ReplicationRecord(id, role, stale, resync, snapshotId, time, durationMillis, bytes);
  }
}
