package io.thinvol.driver.core;

import io.thinvol.driver.store.AccessType;

/**
 * What a volume or snapshot that a new volume copies holds.
 *
 * @param fsType {@code ext4}/{@code xfs} for mount volumes, null for block
 * @param formatted whether it holds a filesystem the driver made (mount volumes only)
 */
public record SourceImage(
    long sizeBytes, AccessType accessType, String fsType, boolean formatted) {}
