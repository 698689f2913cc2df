package io.thinvol.driver.store;

import java.util.Map;

/**
 * What {@code meta.json} says about a volume. Everything the controller side knows lives here; what
 * the node side knows (attached, mounted) is read from the host each time.
 *
 * @param fsType {@code ext4} or {@code xfs} for mount volumes, null for block volumes
 * @param growFilesystemPending the image grew (expansion, or restore into a larger volume) and the
 *     filesystem has not been grown yet; the next stage or node expansion does it
 * @param formatted whether the image holds a filesystem the driver made (set durably after its
 *     mkfs, or inherited from the source of a snapshot or clone): only a volume that is not may be
 *     formatted. Null for block volumes, and in records written before the field existed
 * @param ioMode how its loop devices reach the image ({@code direct} or {@code buffered}); a
 *     StorageClass parameter that ControllerModifyVolume may change. Null in records written before
 *     the field existed, whose devices were always attached buffered
 * @param replication the volume's role in a replication; null when it is not replicated
 */
public record VolumeRecord(
    int schemaVersion,
    String id,
    String name,
    long sizeBytes,
    AccessType accessType,
    String fsType,
    ContentSource contentSource,
    String createdAt,
    Map<String, String> parameters,
    boolean growFilesystemPending,
    Boolean formatted,
    String ioMode,
    ReplicationRecord replication) {

  public static final int SCHEMA_VERSION = 1;

  /** Whether the volume is a replica (or a demoted copy): never staged nor published. */
  public boolean secondary() {
    return replication != null && replication.secondary();
  }

  public VolumeRecord withReplication(ReplicationRecord newReplication) {
    return new VolumeRecord(
        schemaVersion,
        id,
        name,
        sizeBytes,
        accessType,
        fsType,
        contentSource,
        createdAt,
        parameters,
        growFilesystemPending,
        formatted,
        ioMode,
        newReplication);
  }

  public VolumeRecord withSize(long newSize, boolean growPending) {
    return changed(newSize, growPending, formatted, ioMode);
  }

  public VolumeRecord withGrowFilesystemPending(boolean pending) {
    return changed(sizeBytes, pending, formatted, ioMode);
  }

  public VolumeRecord withFormatted() {
    return changed(sizeBytes, growFilesystemPending, true, ioMode);
  }

  public VolumeRecord withIoMode(String newIoMode) {
    return changed(sizeBytes, growFilesystemPending, formatted, newIoMode);
  }

  /** The fields a volume's life changes, replaced; what it is and where it came from stay. */
  private VolumeRecord changed(
      long newSize, boolean growPending, Boolean isFormatted, String newIoMode) {
    return new VolumeRecord(
        schemaVersion,
        id,
        name,
        newSize,
        accessType,
        fsType,
        contentSource,
        createdAt,
        parameters,
        growPending,
        isFormatted,
        newIoMode,
        replication);
  }
}
