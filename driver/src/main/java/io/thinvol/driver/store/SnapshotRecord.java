package io.thinvol.driver.store;

/**
 * What a snapshot's {@code meta.json} says.
 *
 * @param sizeBytes size of the source volume when the snapshot was taken
 * @param fsType the source's filesystem, null when the source was a block volume
 * @param formatted whether the source held a filesystem the driver made (see {@link
 *     VolumeRecord#formatted()}); volumes restored from it inherit it. Null for block volumes and
 *     in records written before the field existed
 * @param groupSnapshotId the group snapshot this snapshot was taken in, null for a snapshot of its
 *     own. A member is deleted only with its group (the spec's "snapshot is part of a group").
 */
public record SnapshotRecord(
    int schemaVersion,
    String id,
    String name,
    String sourceVolumeId,
    long sizeBytes,
    AccessType sourceAccessType,
    String fsType,
    String createdAt,
    Boolean formatted,
    String groupSnapshotId) {

  /** A snapshot of its own, in no group. */
  public SnapshotRecord(
      int schemaVersion,
      String id,
      String name,
      String sourceVolumeId,
      long sizeBytes,
      AccessType sourceAccessType,
      String fsType,
      String createdAt,
      Boolean formatted) {
    this(
        schemaVersion,
        id,
        name,
        sourceVolumeId,
        sizeBytes,
        sourceAccessType,
        fsType,
        createdAt,
        formatted,
        null);
  }
}
