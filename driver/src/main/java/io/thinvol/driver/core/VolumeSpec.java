package io.thinvol.driver.core;

import io.thinvol.driver.host.IoMode;
import io.thinvol.driver.store.AccessType;
import io.thinvol.driver.store.ContentSource;
import java.util.Map;

/**
 * A validated CreateVolume request.
 *
 * @param fsType {@code ext4}/{@code xfs} for mount volumes, null for block
 * @param source null for an empty volume
 * @param ioMode how the volume's loop devices reach its image
 */
public record VolumeSpec(
    String name,
    long requiredBytes,
    long limitBytes,
    AccessType accessType,
    String fsType,
    ContentSource source,
    Map<String, String> parameters,
    IoMode ioMode) {}
