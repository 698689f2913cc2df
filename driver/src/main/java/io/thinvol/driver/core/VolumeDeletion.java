package io.thinvol.driver.core;

import io.thinvol.driver.host.HostTools;
import io.thinvol.driver.host.LoopDevice;
import io.thinvol.driver.host.MountTable;
import io.thinvol.driver.store.Catalog;
import io.thinvol.driver.store.ContentSource;
import io.thinvol.driver.store.DataLayout;
import io.thinvol.driver.store.Ids;
import io.thinvol.driver.store.VolumeRecord;
import java.io.IOException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A volume's deletion: never of one still staged on the node, and once per id or name. */
final class VolumeDeletion {

  private static final Logger log = LoggerFactory.getLogger(VolumeDeletion.class);

  private final String nodeId;
  private final DataLayout layout;
  private final Catalog catalog;
  private final HostTools host;
  private final OperationLocks locks;
  private final CapacityGauge capacity;

  VolumeDeletion(
      String nodeId,
      DataLayout layout,
      Catalog catalog,
      HostTools host,
      OperationLocks locks,
      CapacityGauge capacity) {
    this.nodeId = nodeId;
    this.layout = layout;
    this.catalog = catalog;
    this.host = host;
    this.locks = locks;
    this.capacity = capacity;
  }

  /** Deletes a volume; an unknown id is already deleted. A staged volume is refused. */
  void delete(String volumeId) {
    if (!Ids.isVolumeId(volumeId)) {
      return; // no volume can have this id
    }
    try (OperationLocks.Held held = locks.tryAcquire(volumeId, "volume " + volumeId)) {
      Optional<VolumeRecord> record = catalog.volume(volumeId);
      if (record.isEmpty()) {
        return;
      }
      Optional<LoopDevice> attached = host.loops().find(layout.volumeImage(volumeId));
      if (attached.isPresent() && beingDetached(attached.get())) {
        host.loops().awaitDetached(attached.get()); // a NodeUnstage that answered just now
        attached = Optional.empty();
      }
      if (attached.isPresent()) {
        throw CsiException.failedPrecondition(
            "volume %s is still staged on node %s (attached as %s); unstage it before deleting",
            volumeId, nodeId, attached.get().path());
      }
      catalog.removeVolume(record.get());
      capacity.volumeDeleted(record.get());
      log.info("deleted volume {} ('{}')", volumeId, record.get().name());
    } catch (IOException e) {
      throw CsiException.internal("cannot delete volume " + volumeId + ": " + e.getMessage(), e);
    }
  }

  /**
   * Deletes the volume named {@code name} if it was made from snapshot {@code snapshotId}; ABORTED
   * while a call making a volume of that name runs.
   *
   * @return whether there was one
   */
  boolean deleteCopy(String name, String snapshotId) {
    try (OperationLocks.Held held =
        locks.tryAcquire("name:volume:" + name, "volume name '" + name + "'")) {
      Optional<VolumeRecord> named = catalog.volumeByName(name);
      if (named.isEmpty()) {
        return false;
      }
      ContentSource source = named.get().contentSource();
      if (source == null
          || source.kind() != ContentSource.Kind.SNAPSHOT
          || !source.id().equals(snapshotId)) {
        throw CsiException.failedPrecondition(
            "volume '%s' (%s) was not copied from snapshot %s: left as it is",
            name, named.get().id(), snapshotId);
      }
      delete(named.get().id());
      return true;
    }
  }

  /** Unstaged already, its detach waiting for a last opener (udev's probe) to close it. */
  private boolean beingDetached(LoopDevice device) {
    MountTable table = host.mountTable();
    return host.loops().detaching(device)
        && table.ofDevice(device).isEmpty()
        && table.ofDeviceNode(device).isEmpty();
  }
}
