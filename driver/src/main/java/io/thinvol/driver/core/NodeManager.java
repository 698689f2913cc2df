package io.thinvol.driver.core;

import io.thinvol.driver.host.FsUsage;
import io.thinvol.driver.host.HostTools;
import io.thinvol.driver.store.AccessType;
import io.thinvol.driver.store.DataLayout;
import java.nio.file.Path;
import java.util.List;

/**
 * The node side: loop devices, filesystems and mounts, one operation per volume at a time. What is
 * attached and mounted is read from the kernel on every call, never remembered, so a restart (in a
 * new mount namespace, as a container restarts) or a reboot cannot make the driver believe
 * something that is no longer true. Missing loop devices are attached again.
 */
public final class NodeManager {

  private final OperationLocks locks;
  private final NodeStaging staging;
  private final NodePublishing publishing;
  private final NodeVolumeStats stats;

  public NodeManager(
      DataLayout layout, VolumeManager volumes, HostTools host, OperationLocks locks) {
    this.locks = locks;
    NodeAttachments attachments = new NodeAttachments(layout, volumes, host);
    VolumeFilesystems filesystems = new VolumeFilesystems(volumes, host);
    this.staging = new NodeStaging(attachments, filesystems);
    this.publishing = new NodePublishing(attachments, filesystems);
    this.stats = new NodeVolumeStats(attachments, filesystems);
  }

  /**
   * How the CO wants to use the volume on this node.
   *
   * @param readerOnly the access mode only reads (SINGLE_NODE_READER_ONLY): staged and published
   *     read-only whatever the publish request's {@code readonly} says
   */
  public record Usage(
      AccessType accessType,
      String fsType,
      List<String> mountFlags,
      boolean readerOnly,
      boolean singleWriter) {}

  /** Stats of a published volume; {@code filesystem} is null for block volumes. */
  public record Stats(FsUsage filesystem, long deviceBytes, String problem) {}

  public void stage(String volumeId, Path stagingPath, Usage usage) {
    try (OperationLocks.Held held = lock(volumeId)) {
      staging.stage(volumeId, stagingPath, usage);
    }
  }

  public void unstage(String volumeId, Path stagingPath) {
    try (OperationLocks.Held held = lock(volumeId)) {
      staging.unstage(volumeId, stagingPath);
    }
  }

  public void publish(
      String volumeId, Path stagingPath, Path targetPath, Usage usage, boolean readOnly) {
    try (OperationLocks.Held held = lock(volumeId)) {
      publishing.publish(volumeId, stagingPath, targetPath, usage, readOnly);
    }
  }

  public void unpublish(String volumeId, Path targetPath) {
    try (OperationLocks.Held held = lock(volumeId)) {
      publishing.unpublish(volumeId, targetPath);
    }
  }

  public Stats stats(String volumeId, Path volumePath) {
    return stats.stats(volumeId, volumePath);
  }

  /**
   * Grows the loop device and the filesystem to the image's size; returns the new size. With {@code
   * growImage} (node-side expansion) the image itself is grown here first, on the node that holds
   * it.
   */
  public long expand(
      String volumeId, Path volumePath, long requiredBytes, long limitBytes, boolean growImage) {
    try (OperationLocks.Held held = lock(volumeId)) {
      return stats.expand(volumeId, volumePath, requiredBytes, limitBytes, growImage);
    }
  }

  private OperationLocks.Held lock(String volumeId) {
    return locks.tryAcquire(volumeId, "volume " + volumeId);
  }
}
