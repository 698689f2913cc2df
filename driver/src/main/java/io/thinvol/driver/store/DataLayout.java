package io.thinvol.driver.store;

import java.nio.file.Path;

/**
 * Where things live under the data dir. A directory is published under its final name only once
 * complete (created as {@code .creating-<id>} and renamed), and is renamed to {@code
 * .deleting-<id>} before removal, so a crash never leaves a half volume that looks whole. A volume
 * made by applying a delta in place onto its base is assembled as {@code .applying-<id>}, which a
 * start finishes rather than removes once its journal says it is committed.
 */
public record DataLayout(Path root) {

  public static final String IMAGE = "disk.img";
  public static final String META = "meta.json";
  static final String CREATING = ".creating-";
  static final String DELETING = ".deleting-";
  static final String APPLYING = ".applying-";

  public Path volumes() {
    return root.resolve("volumes");
  }

  public Path snapshots() {
    return root.resolve("snapshots");
  }

  /** One file per group snapshot, {@code <group-id>.json}; its members live in snapshots/. */
  public Path groups() {
    return root.resolve("groups");
  }

  public Path groupFile(String groupSnapshotId) {
    if (!Ids.isGroupSnapshotId(groupSnapshotId)) {
      throw new IllegalArgumentException("not a group snapshot id: " + groupSnapshotId);
    }
    return groups().resolve(groupSnapshotId + ".json");
  }

  /** Markers of the filesystems a snapshot or clone has frozen (see core.Freezes). */
  public Path frozen() {
    return root.resolve("frozen");
  }

  public Path volumeDir(String volumeId) {
    return volumes().resolve(requireVolumeId(volumeId));
  }

  public Path volumeImage(String volumeId) {
    return volumeDir(volumeId).resolve(IMAGE);
  }

  public Path snapshotDir(String snapshotId) {
    if (!Ids.isSnapshotId(snapshotId)) {
      throw new IllegalArgumentException("not a snapshot id: " + snapshotId);
    }
    return snapshots().resolve(snapshotId);
  }

  public Path snapshotImage(String snapshotId) {
    return snapshotDir(snapshotId).resolve(IMAGE);
  }

  /** The private directory in which an object is assembled before it is published. */
  public static Path creating(Path finalDir) {
    return finalDir.resolveSibling(CREATING + finalDir.getFileName());
  }

  /**
   * The private directory of a volume made by applying a delta in place onto its base ({@code
   * core.InPlaceDeltas}): removed at start like {@link #creating} until its journal is committed,
   * finished after.
   */
  public static Path applying(Path finalDir) {
    return finalDir.resolveSibling(APPLYING + finalDir.getFileName());
  }

  /** The volume id whose in-place assembly {@code dir} is, or null if it is none. */
  public static String applyingVolumeId(Path dir) {
    String name = dir.getFileName().toString();
    if (!name.startsWith(APPLYING)) {
      return null;
    }
    String id = name.substring(APPLYING.length());
    return Ids.isVolumeId(id) ? id : null;
  }

  static Path deleting(Path finalDir) {
    return finalDir.resolveSibling(DELETING + finalDir.getFileName());
  }

  private static String requireVolumeId(String volumeId) {
    if (!Ids.isVolumeId(volumeId)) {
      throw new IllegalArgumentException("not a volume id: " + volumeId);
    }
    return volumeId;
  }
}
