package io.thinvol.driver.core;

import io.thinvol.driver.store.VolumeRecord;

/**
 * A volume made as the changes since its base's snapshot.
 *
 * @param receivedBytes the bytes of changed blocks that came from the snapshot's node; 0 when this
 *     call made nothing (the volume made first under its name, or a snapshot of this node copied
 *     locally)
 */
public record DeltaCopied(VolumeRecord volume, long receivedBytes) {}
