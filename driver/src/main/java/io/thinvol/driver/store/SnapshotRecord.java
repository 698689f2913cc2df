package io.thinvol.driver.store;

/**
 * What a snapshot's {@code meta.json} says.
 *
 * @param sizeBytes size of the source volume when the snapshot was taken
 * @param fsType the source's filesystem, null when the source was a block volume
 */
public record SnapshotRecord(
    int schemaVersion,
    String id,
    String name,
    String sourceVolumeId,
    long sizeBytes,
    AccessType sourceAccessType,
    String fsType,
    String createdAt) {}
