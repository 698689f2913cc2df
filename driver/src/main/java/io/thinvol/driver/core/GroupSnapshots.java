package io.thinvol.driver.core;

import io.thinvol.driver.config.DriverConfig;
import io.thinvol.driver.store.Catalog;
import io.thinvol.driver.store.GroupCatalog;
import io.thinvol.driver.store.GroupSnapshotRecord;
import io.thinvol.driver.store.Ids;
import io.thinvol.driver.store.SnapshotRecord;
import io.thinvol.driver.store.VolumeRecord;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Volume group snapshots: the images of several volumes copied at one point in time (every
 * filesystem of the group frozen for all the copies, see {@link ImageCopier#copyTogether}). Each
 * member is an ordinary snapshot that names its group; the group's own file is written after all
 * members are published and removed before any member is, so a crash in between leaves only members
 * whose group does not exist, which {@link #recover()} removes.
 */
public final class GroupSnapshots {

  private static final Logger log = LoggerFactory.getLogger(GroupSnapshots.class);
  // A repeated CreateVolumeGroupSnapshot for a name waits for the first and gets its answer.
  private static final Duration NAME_WAIT = Duration.ofSeconds(30);

  private final DriverConfig config;
  private final GroupCatalog groups;
  private final Catalog catalog;
  private final OperationLocks locks;
  private final Snapshots snapshots;
  private final ImageCopier copier;

  GroupSnapshots(
      DriverConfig config,
      GroupCatalog groups,
      Catalog catalog,
      OperationLocks locks,
      Snapshots snapshots,
      ImageCopier copier) {
    this.config = config;
    this.groups = groups;
    this.catalog = catalog;
    this.locks = locks;
    this.snapshots = snapshots;
    this.copier = copier;
  }

  /** A group snapshot and its members, in the order of their source volumes. */
  public record Group(GroupSnapshotRecord record, List<SnapshotRecord> members) {}

  /** Removes the members of groups whose creation or deletion a crash interrupted. */
  public void recover() {
    for (SnapshotRecord snapshot : catalog.snapshots()) {
      String group = snapshot.groupSnapshotId();
      if (group != null && !groups.mayExist(group)) {
        log.warn(
            "removing snapshot {}: its group snapshot {} was never completed or is being deleted",
            snapshot.id(),
            group);
        snapshots.remove(snapshot);
      }
    }
  }

  /**
   * Snapshots the volumes together; the copies must fit in {@code budget}. A failure removes every
   * member made so far and leaves no filesystem frozen.
   */
  public Group create(String name, List<String> sourceVolumeIds, Duration budget) {
    try (OperationLocks.Held nameLock =
        locks.acquire("name:group:" + name, "group snapshot name '" + name + "'", NAME_WAIT)) {
      Optional<GroupSnapshotRecord> existing = groups.byName(name);
      if (existing.isPresent()) {
        if (!Set.copyOf(existing.get().sourceVolumeIds()).equals(Set.copyOf(sourceVolumeIds))) {
          throw CsiException.alreadyExists(
              "group snapshot '%s' already exists as %s of the volumes %s, not of %s; use another"
                  + " name for another set of volumes",
              name, existing.get().id(), existing.get().sourceVolumeIds(), sourceVolumeIds);
        }
        return view(existing.get());
      }
      List<OperationLocks.Held> held = new ArrayList<>();
      try {
        for (String id : new TreeSet<>(sourceVolumeIds)) {
          held.add(locks.tryAcquire(id, "volume " + id));
        }
        return cut(name, requireVolumesHere(sourceVolumeIds), budget);
      } finally {
        held.forEach(OperationLocks.Held::close);
      }
    }
  }

  private List<VolumeRecord> requireVolumesHere(List<String> ids) {
    List<VolumeRecord> found = new ArrayList<>();
    List<String> missing = new ArrayList<>();
    for (String id : ids) {
      catalog.volume(id).ifPresentOrElse(found::add, () -> missing.add(id));
    }
    if (missing.isEmpty()) {
      return found;
    }
    if (found.isEmpty()) {
      throw CsiException.notFound("the volumes %s do not exist on node %s", ids, config.nodeId());
    }
    throw CsiException.failedPrecondition(
        "the volumes %s are not on node %s, which holds %s: thinvol volumes live on one node and a"
            + " group snapshot can only hold volumes of the same node; group the PVCs of one node"
            + " only (for example by labelling them per node), or check that the missing volumes"
            + " were not deleted",
        missing, config.nodeId(), found.stream().map(VolumeRecord::id).toList());
  }

  private Group cut(String name, List<VolumeRecord> sources, Duration budget) {
    String id = Ids.newGroupSnapshotId();
    List<Snapshots.Assembly> assemblies = new ArrayList<>();
    List<SnapshotRecord> members = new ArrayList<>();
    GroupSnapshotRecord record = null;
    try {
      for (VolumeRecord source : sources) {
        assemblies.add(snapshots.begin(source, id + "/" + source.id(), id));
      }
      copier.copyTogether(
          assemblies.stream().map(a -> new ImageCopier.Copy(a.source(), a.image())).toList(),
          budget);
      Instant cutAt = Instant.now();
      for (Snapshots.Assembly assembly : assemblies) {
        members.add(assembly.publish(cutAt));
      }
      record =
          new GroupSnapshotRecord(
              VolumeRecord.SCHEMA_VERSION,
              id,
              name,
              sources.stream().map(VolumeRecord::id).toList(),
              members.stream().map(SnapshotRecord::id).toList(),
              cutAt.toString());
      groups.publish(record); // the commit point
      log.info(
          "created group snapshot {} ('{}') of the volumes {}", id, name, record.sourceVolumeIds());
      return new Group(record, members);
    } catch (IOException | RuntimeException e) {
      rollBack(record, members);
      throw e instanceof IOException
          ? CsiException.internal(
              "cannot record group snapshot '" + name + "': " + e.getMessage(), e)
          : (RuntimeException) e;
    } finally {
      assemblies.forEach(Snapshots.Assembly::close); // removes what was never published
    }
  }

  private void rollBack(GroupSnapshotRecord record, List<SnapshotRecord> members) {
    try {
      if (record != null) {
        groups.remove(record);
      }
      members.forEach(snapshots::remove);
    } catch (IOException | RuntimeException e) {
      // What is left names a group that does not exist: the next start removes it.
      log.error("cannot roll back the members {}: {}", members, e.getMessage());
    }
  }

  /**
   * The group with this id; the caller's list of its snapshots, when it gives one, must be the
   * right one.
   */
  public Group get(String groupSnapshotId, Collection<String> snapshotIds) {
    GroupSnapshotRecord record =
        (Ids.isGroupSnapshotId(groupSnapshotId)
                ? groups.group(groupSnapshotId)
                : Optional.<GroupSnapshotRecord>empty())
            .orElseThrow(
                () ->
                    CsiException.notFound(
                        "group snapshot %s does not exist on node %s",
                        groupSnapshotId, config.nodeId()));
    requireSameSnapshots(record, snapshotIds);
    return view(record);
  }

  /** Deletes a group and all its members; an unknown id is already deleted. */
  public void delete(String groupSnapshotId, Collection<String> snapshotIds) {
    if (!Ids.isGroupSnapshotId(groupSnapshotId)) {
      return; // no group can have this id
    }
    try (OperationLocks.Held held =
        locks.tryAcquire(groupSnapshotId, "group snapshot " + groupSnapshotId)) {
      Optional<GroupSnapshotRecord> record = groups.group(groupSnapshotId);
      if (record.isEmpty()) {
        return;
      }
      requireSameSnapshots(record.get(), snapshotIds);
      List<OperationLocks.Held> members = new ArrayList<>();
      try {
        for (String id : record.get().snapshotIds()) {
          members.add(locks.tryAcquire(id, "snapshot " + id)); // a restore from it may be running
        }
        groups.remove(record.get()); // from here on, the next start would finish the removal
        record.get().snapshotIds().forEach(id -> catalog.snapshot(id).ifPresent(snapshots::remove));
        log.info("deleted group snapshot {} ('{}')", groupSnapshotId, record.get().name());
      } finally {
        members.forEach(OperationLocks.Held::close);
      }
    } catch (IOException e) {
      throw CsiException.internal(
          "cannot delete group snapshot " + groupSnapshotId + ": " + e.getMessage(), e);
    }
  }

  /** An empty list is no list: the spec's field cannot tell the two apart. */
  private static void requireSameSnapshots(
      GroupSnapshotRecord record, Collection<String> snapshotIds) {
    if (!snapshotIds.isEmpty()
        && !new HashSet<>(snapshotIds).equals(Set.copyOf(record.snapshotIds()))) {
      throw CsiException.invalidArgument(
          "snapshot_ids %s do not match the snapshots of group snapshot %s, which are %s",
          snapshotIds, record.id(), record.snapshotIds());
    }
  }

  private Group view(GroupSnapshotRecord record) {
    List<SnapshotRecord> members = new ArrayList<>();
    for (String id : record.snapshotIds()) {
      members.add(
          catalog
              .snapshot(id)
              .orElseThrow(
                  () ->
                      CsiException.internal(
                          "snapshot "
                              + id
                              + " of group snapshot "
                              + record.id()
                              + " is missing from the data dir "
                              + "(removed by hand?); delete the group and take it again",
                          null)));
    }
    return new Group(record, members);
  }
}
