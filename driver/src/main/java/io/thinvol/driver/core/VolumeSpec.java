package io.thinvol.driver.core;

import io.thinvol.driver.host.IoMode;
import io.thinvol.driver.store.AccessType;
import io.thinvol.driver.store.ContentSource;
import io.thinvol.driver.store.ReplicationRecord;
import java.util.Map;

/**
 * A validated CreateVolume request.
 *
 * @param fsType {@code ext4}/{@code xfs} for mount volumes, null for block
 * @param source null for an empty volume
 * @param ioMode how the volume's loop devices reach its image
 * @param baseVolumeId a volume of this node made from an earlier snapshot of the volume that {@code
 *     source} (a snapshot on another node) was taken of: only the changes since are pulled, onto a
 *     copy of it. Null for a whole copy
 * @param replication for a replica: its replication, role secondary, holding {@code source}; null
 *     for any other volume
 */
public record VolumeSpec(
    String name,
    long requiredBytes,
    long limitBytes,
    AccessType accessType,
    String fsType,
    ContentSource source,
    Map<String, String> parameters,
    IoMode ioMode,
    String baseVolumeId,
    ReplicationRecord replication) {}
