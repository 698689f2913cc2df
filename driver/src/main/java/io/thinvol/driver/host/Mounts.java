package io.thinvol.driver.host;

import com.sun.jna.NativeLong;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * mount(2) and umount2(2). Callers read the current state from {@link MountTable}, not from here.
 */
public final class Mounts {

  private static final Duration TIMEOUT = Duration.ofMinutes(2);

  /** More mounts than this on one path are not the driver's doing; it stops and says so. */
  public static final int MAX_STACKED = 8;

  private final CommandRunner runner;

  public Mounts(CommandRunner runner) {
    this.runner = runner;
  }

  /** Mounts the filesystem on {@code device} at {@code target} with {@code options}. */
  public void mount(Path device, Path target, String fsType, List<String> options) {
    List<String> shown = new ArrayList<>(List.of("mount", "-t", fsType));
    if (!options.isEmpty()) {
      shown.add("-o");
      shown.add(String.join(",", options));
    }
    shown.add(device.toString());
    shown.add(target.toString());
    MountFlags flags = MountFlags.parse(options);
    runner.call(
        TIMEOUT,
        HostCall.of(
                shown,
                () ->
                    Libc.INSTANCE.mount(
                        device.toString(),
                        target.toString(),
                        fsType,
                        new NativeLong(flags.flags()),
                        flags.data()))
            .meaning(
                Errno.EINVAL,
                "was refused: the filesystem on "
                    + device
                    + " is damaged or not "
                    + fsType
                    + ", or a mount option is unknown (see dmesg)")
            .meaning(Errno.EBUSY, "is busy: " + device + " is already mounted elsewhere")
            .undoneLateBy(done -> umount(target)));
  }

  /**
   * Bind-mounts {@code source} (a directory or a device node) onto {@code target}; read-only binds
   * need a second remount, which the kernel requires for bind mounts. The remount keeps the flags
   * the bind inherited (nosuid, nodev, noexec, ...): a remount sets all of them at once.
   */
  public void bind(Path source, Path target, boolean readOnly, List<String> options) {
    runner.call(
        TIMEOUT,
        HostCall.of(
                List.of("mount", "--bind", source.toString(), target.toString()),
                () -> mount(source, target, MountFlags.MS_BIND, null))
            .undoneLateBy(done -> umount(target)));
    if (readOnly || !options.isEmpty()) {
      List<String> remount = new ArrayList<>(List.of("remount", "bind"));
      if (readOnly) {
        remount.add("ro");
      }
      remount.addAll(options);
      MountFlags wanted = MountFlags.parse(remount.subList(2, remount.size()));
      try {
        runner.call(
            TIMEOUT,
            HostCall.of(
                List.of("mount", "-o", String.join(",", remount), target.toString()),
                () ->
                    mount(
                        null,
                        target,
                        MountFlags.MS_REMOUNT
                            | MountFlags.MS_BIND
                            | (StatFs.of(target).flags() & MountFlags.PER_MOUNT)
                            | wanted.flags(),
                        null)));
      } catch (HostCommandException e) {
        try {
          unmount(target);
        } catch (HostCommandException ignored) {
          // the remount's failure is the one to report
        }
        throw e;
      }
    }
  }

  /**
   * Unmounts {@code target}. A busy target is an error, never lazily detached: a lazy unmount would
   * report success while the filesystem stays in use.
   */
  public void unmount(Path target) {
    runner.call(
        TIMEOUT,
        HostCall.action(List.of("umount", target.toString()), () -> umount(target))
            .meaning(
                Errno.EBUSY,
                "is busy: a process still has a file open there, or something is mounted below"
                    + " it")
            .meaning(Errno.EINVAL, "is not a mount point"));
  }

  /**
   * Unmounts {@code target} until it is no longer a mount point: mounts can be stacked there, and
   * an unmount propagates to the copies that propagation made, or leaves one to unmount next. Stops
   * after {@link #MAX_STACKED} unmounts.
   */
  public void unmountAll(Path target) {
    for (int i = 0; i < MAX_STACKED; i++) {
      if (MountTable.read().at(target).isEmpty()) {
        return;
      }
      unmount(target);
    }
    if (MountTable.read().at(target).isPresent()) {
      throw new HostCommandException(
          target + " is still a mount point after " + MAX_STACKED + " unmounts");
    }
  }

  private static int mount(Path source, Path target, long flags, String data) {
    return Libc.INSTANCE.mount(
        source == null ? null : source.toString(),
        target.toString(),
        null,
        new NativeLong(flags),
        data);
  }

  private static void umount(Path target) {
    Libc.INSTANCE.umount2(target.toString(), 0);
  }
}
