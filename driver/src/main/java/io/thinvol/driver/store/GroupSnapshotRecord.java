package io.thinvol.driver.store;

import java.util.List;

/**
 * What a group snapshot's file says. Its members are ordinary snapshots (each names this group in
 * its own record); the group file is written last, so it is the commit point of a creation and the
 * first thing a deletion removes.
 *
 * @param sourceVolumeIds the volumes snapshotted together, in the order the CO sent them
 * @param snapshotIds the member snapshots, in the same order as their sources
 */
public record GroupSnapshotRecord(
    int schemaVersion,
    String id,
    String name,
    List<String> sourceVolumeIds,
    List<String> snapshotIds,
    String createdAt) {

  public GroupSnapshotRecord {
    sourceVolumeIds = List.copyOf(sourceVolumeIds);
    snapshotIds = List.copyOf(snapshotIds);
  }
}
