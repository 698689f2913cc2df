package io.thinvol.driver.core;

import io.thinvol.driver.host.FsType;
import io.thinvol.driver.host.HostTools;
import io.thinvol.driver.host.LoopDevice;
import io.thinvol.driver.host.MountEntry;
import io.thinvol.driver.host.MountTable;
import io.thinvol.driver.host.Privileges;
import io.thinvol.driver.store.VolumeRecord;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The filesystem inside a mount volume: created on first stage, mounted at the staging path, grown
 * when the image grew. Only a volume the driver never formatted is formatted, and only while it is
 * blank; a formatted volume whose filesystem is no longer recognisable (a damaged superblock) is
 * refused with the way to repair it, and a device holding anything else than the volume's
 * filesystem is refused, never overwritten.
 */
final class VolumeFilesystems {

  private final VolumeManager volumes;
  private final HostTools host;

  VolumeFilesystems(VolumeManager volumes, HostTools host) {
    this.volumes = volumes;
    this.host = host;
  }

  /**
   * Mounts the volume's filesystem at the staging path, creating it on first use. A pending growth
   * of ext4 is done before mounting (offline, no special privilege needed); xfs can only grow
   * mounted.
   */
  MountTable ensureMounted(
      VolumeRecord volume, LoopDevice device, Path stagingPath, List<String> flags) {
    MountTable table = host.mountTable();
    boolean mountedNow = ensureMounted(volume, device, false, table, stagingPath, flags);
    return mountedNow ? host.mountTable() : table;
  }

  /**
   * {@link #ensureMounted(VolumeRecord, LoopDevice, Path, List)} with the mounts the caller read in
   * this call, under the volume's lock; returns whether it mounted the filesystem (which {@code
   * table} then does not show). {@code attachedNow}: this call attached the device, so its image's
   * extent map can tell that it is blank.
   */
  boolean ensureMounted(
      VolumeRecord volume,
      LoopDevice device,
      boolean attachedNow,
      MountTable table,
      Path stagingPath,
      List<String> flags) {
    Optional<MountEntry> present = table.at(stagingPath);
    if (present.isPresent()) {
      if (!present.get().majorMinor().equals(device.majorMinor())) {
        throw CsiException.alreadyExists(
            "staging path %s already has another device mounted (%s)",
            stagingPath, present.get().source());
      }
    } else {
      FsType fs = fsType(volume);
      CompletableFuture<VolumeRecord> recording = null;
      Path image = volumes.imageOf(volume.id());
      Optional<String> found =
          attachedNow
              ? host.filesystems().probeAttachedNow(device, image)
              : host.filesystems().probe(device);
      if (found.isEmpty()) {
        if (wasFormatted(volume.formatted(), image, host)) {
          throw unrecognisable(volume, fs, image);
        }
        requireMakeable(volume, fs);
        host.filesystems().format(device.path(), fs);
        if (!fs.mkfsSyncsDevice()) {
          host.files().sync(List.of(device.path())); // before the record says it is there
        }
        VolumeRecord made = volume;
        // in parallel with the mount; awaited before the call returns (see mountWhileRecording)
        recording = CompletableFuture.supplyAsync(() -> recordFormatted(made));
      } else if (!found.get().equals(fs.id())) {
        throw CsiException.failedPrecondition(
            "volume %s should hold %s but its device holds %s; refusing to mount or format it",
            volume.id(), fs.id(), found.get());
      } else {
        if (!Boolean.TRUE.equals(volume.formatted())) {
          volume = recordFormatted(volume); // formatted by a run that stopped before recording it
        }
        if (fs == FsType.EXT4 && volume.growFilesystemPending()) {
          host.loops().refreshSize(device);
          host.filesystems().growExt4Offline(device.path());
          volume = recordGrown(volume);
        }
      }
      List<String> options = new ArrayList<>(fs.requiredMountOptions());
      options.addAll(flags);
      if (recording == null) {
        mount(device, stagingPath, fs, options);
      } else {
        volume = mountWhileRecording(recording, device, stagingPath, fs, options);
      }
    }
    if (fsType(volume) == FsType.XFS) {
      // on every stage, not only after mounting: a stage that failed here is retried
      host.filesystems().boundXfsErrorRetries(device);
    }
    if (volume.growFilesystemPending() && !flags.contains("ro")) { // xfs grows only read-write
      grow(volume, device, stagingPath);
    }
    return present.isEmpty();
  }

  private void mount(LoopDevice device, Path stagingPath, FsType fs, List<String> options) {
    try {
      if (!stagingPath.toFile().isDirectory()) { // the CO made it: no failed mkdir and exceptions
        Files.createDirectories(stagingPath);
      }
    } catch (IOException e) {
      throw CsiException.internal("cannot create " + stagingPath + ": " + e.getMessage(), e);
    }
    host.mounts().mount(device.path(), stagingPath, fs.id(), options);
  }

  /**
   * Mounts a filesystem made by this call while its record is being written. The record must be
   * durable before anything is written to the filesystem, and nothing is until this call reports
   * success, so it need not come before the mount: the call waits for it, and a record that failed
   * unmounts the filesystem again (the next stage finds it and records it then).
   */
  private VolumeRecord mountWhileRecording(
      CompletableFuture<VolumeRecord> recording,
      LoopDevice device,
      Path stagingPath,
      FsType fs,
      List<String> options) {
    try {
      mount(device, stagingPath, fs, options);
    } catch (RuntimeException e) {
      try {
        recording.join();
      } catch (RuntimeException recordFailure) {
        e.addSuppressed(recordFailure);
      }
      throw e;
    }
    try {
      return recording.join();
    } catch (CompletionException e) {
      RuntimeException failure = e.getCause() instanceof RuntimeException cause ? cause : e;
      try {
        host.mounts().unmount(stagingPath);
      } catch (RuntimeException unmountFailure) {
        failure.addSuppressed(unmountFailure);
      }
      throw failure;
    }
  }

  /** Grows the mounted filesystem to fill its (already refreshed) device. */
  void grow(VolumeRecord volume, LoopDevice device, Path mountPoint) {
    FsType fs = fsType(volume);
    if (fs == FsType.EXT4) {
      Privileges.whyNoOnlineExt4Growth()
          .ifPresent(
              why -> {
                throw CsiException.failedPrecondition(
                    "growing the mounted ext4 filesystem of volume %s needs CAP_SYS_RESOURCE: %s."
                        + " The filesystem grows offline instead when the volume is staged again:"
                        + " delete the pod that uses it (the volume is unstaged, and staged for"
                        + " the next pod); or use xfs, which grows mounted without it",
                    volume.id(), why);
              });
    }
    host.loops().refreshSize(device);
    host.filesystems().growOnline(fs, device.path(), mountPoint);
    recordGrown(volume);
  }

  /**
   * Whether a volume holds a filesystem the driver made, so it must never be formatted. A record
   * says so; a record from before the driver kept count ({@code null}) is judged by its image: an
   * image without a single allocated block was never written, anything else may hold data.
   */
  static boolean wasFormatted(Boolean recorded, Path image, HostTools host) {
    return recorded != null ? recorded : host.stats().allocatedBytes(image) > 0;
  }

  /** NodeStage's row "volume capability not supported here" is FAILED_PRECONDITION. */
  private void requireMakeable(VolumeRecord volume, FsType fs) {
    host.filesystemTools()
        .unavailable(fs)
        .ifPresent(
            why -> {
              throw CsiException.failedPrecondition(
                  "volume %s has never been formatted and %s", volume.id(), why);
            });
  }

  private static CsiException unrecognisable(VolumeRecord volume, FsType fs, Path image) {
    String repair =
        switch (fs) {
          case EXT4 ->
              "list its backup superblocks with `mke2fs -n "
                  + image
                  + "` (-n writes nothing) and repair it from one with `e2fsck -b <backup> -B"
                  + " <block size> "
                  + image
                  + "` (e.g. -b 32768 -B 4096 for volumes of 512 MiB or more, -b 8193 -B 1024"
                  + " below)";
          case XFS ->
              "check it with `xfs_repair -n -f "
                  + image
                  + "`, then repair it with `xfs_repair -f "
                  + image
                  + "`";
        };
    return CsiException.failedPrecondition(
        "volume %s holds an %s filesystem this driver made, but no filesystem is recognisable on"
            + " it any more (damaged superblock?); it was neither mounted nor formatted again. While"
            + " it is unstaged, %s; then stage it again",
        volume.id(), fs.id(), repair);
  }

  private VolumeRecord recordFormatted(VolumeRecord volume) {
    VolumeRecord formatted = volumes.requireVolume(volume.id()).withFormatted();
    try {
      volumes.catalog().update(formatted);
    } catch (IOException e) {
      throw CsiException.internal("cannot record the new filesystem of " + volume.id(), e);
    }
    return formatted;
  }

  private VolumeRecord recordGrown(VolumeRecord volume) {
    VolumeRecord current = volumes.requireVolume(volume.id());
    if (!current.growFilesystemPending()) {
      return current;
    }
    VolumeRecord grown = current.withGrowFilesystemPending(false);
    try {
      volumes.catalog().update(grown);
    } catch (IOException e) {
      throw CsiException.internal("cannot record the grown filesystem of " + volume.id(), e);
    }
    return grown;
  }

  static FsType fsType(VolumeRecord volume) {
    return FsType.parse(volume.fsType())
        .orElseThrow(
            () ->
                CsiException.internal(
                    "volume " + volume.id() + " has an unknown filesystem " + volume.fsType(),
                    null));
  }
}
