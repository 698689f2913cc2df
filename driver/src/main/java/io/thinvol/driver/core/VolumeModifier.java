package io.thinvol.driver.core;

import io.thinvol.driver.host.HostCommandException;
import io.thinvol.driver.host.HostTools;
import io.thinvol.driver.host.IoMode;
import io.thinvol.driver.host.LoopDevice;
import io.thinvol.driver.store.VolumeRecord;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Changes a volume's mutable attributes (ControllerModifyVolume) and keeps its loop devices in the
 * recorded I/O mode: a change switches the attached devices live and is recorded in the volume's
 * metadata, which every later attach follows (after a reboot, the next stage re-attaches).
 */
public final class VolumeModifier {

  private static final Logger log = LoggerFactory.getLogger(VolumeModifier.class);

  private final VolumeManager volumes;
  private final HostTools host;
  private final OperationLocks locks;

  VolumeModifier(VolumeManager volumes, HostTools host, OperationLocks locks) {
    this.volumes = volumes;
    this.host = host;
    this.locks = locks;
  }

  /** The I/O mode of a volume; records from before the mode existed were attached buffered. */
  public static IoMode ioModeOf(VolumeRecord volume) {
    return volume.ioMode() == null
        ? IoMode.BUFFERED
        : IoMode.parse(volume.ioMode()).orElse(IoMode.BUFFERED);
  }

  /**
   * Sets the volume's I/O mode: its attached loop devices switch at once, under I/O; a volume that
   * is not attached only records it. Repeating a change that is done is a no-op, and so is no mode
   * at all: the spec's SPs "MUST NOT modify volumes based on the absence of keys" (the volume must
   * exist all the same).
   */
  public VolumeRecord modify(String volumeId, Optional<IoMode> requested) {
    try (OperationLocks.Held held = locks.tryAcquire(volumeId, "volume " + volumeId)) {
      VolumeRecord volume =
          volumes
              .catalog()
              .volume(volumeId)
              .orElseThrow(
                  () ->
                      CsiException.notFound(
                          "volume %s does not exist on this node; a volume of another node is"
                              + " changed there, by a driver that forwards ControllerModifyVolume"
                              + " (--peer-token-file, docs/driver.md)",
                          volumeId));
      if (requested.isEmpty()) {
        return volume;
      }
      IoMode mode = requested.get();
      Path image = volumes.imageOf(volumeId);
      for (LoopDevice device : host.loops().of(image)) {
        switchDevice(volumeId, device, mode);
      }
      if (ioModeOf(volume) == mode && volume.ioMode() != null) {
        return volume;
      }
      VolumeRecord changed = volume.withIoMode(mode.id());
      volumes.catalog().update(changed);
      log.info("volume {} now uses {} I/O", volumeId, mode.id());
      return changed;
    } catch (IOException e) {
      throw CsiException.internal(
          "cannot record the I/O mode of volume " + volumeId + ": " + e.getMessage(), e);
    }
  }

  private void switchDevice(String volumeId, LoopDevice device, IoMode mode) {
    if (host.loops().ioMode(device) == mode) {
      return;
    }
    try {
      host.loops().setIoMode(device, mode);
    } catch (HostCommandException e) {
      throw CsiException.failedPrecondition(
          "cannot switch %s (volume %s) to %s I/O: %s; the data dir's filesystem may not allow"
              + " direct I/O, keep ioMode=buffered for volumes on it",
          device.path(), volumeId, mode.id(), e.getMessage());
    }
    log.info("switched {} (volume {}) to {} I/O", device.path(), volumeId, mode.id());
  }

  /**
   * Brings freshly attached or found devices to the volume's recorded mode (a change recorded while
   * the driver was down, or a kernel that declined direct I/O at attach). A device that cannot
   * switch still works, so this only warns: a performance setting never fails a stage.
   */
  static void align(HostTools host, VolumeRecord volume, List<LoopDevice> devices) {
    IoMode wanted = ioModeOf(volume);
    for (LoopDevice device : devices) {
      if (host.loops().ioMode(device) == wanted) {
        continue;
      }
      try {
        host.loops().setIoMode(device, wanted);
      } catch (HostCommandException e) {
        log.warn(
            "volume {} should use {} I/O but {} cannot switch ({}); it keeps {} I/O",
            volume.id(),
            wanted.id(),
            device.path(),
            e.getMessage(),
            host.loops().ioMode(device).id());
      }
    }
  }
}
