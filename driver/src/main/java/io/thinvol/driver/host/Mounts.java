package io.thinvol.driver.host;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** mount and umount. Callers read the current state from {@link MountTable}, not from here. */
public final class Mounts {

  private static final Duration TIMEOUT = Duration.ofMinutes(2);

  private final CommandRunner runner;

  public Mounts(CommandRunner runner) {
    this.runner = runner;
  }

  /** Mounts the filesystem on {@code device} at {@code target} with {@code options}. */
  public void mount(Path device, Path target, String fsType, List<String> options) {
    List<String> argv = new ArrayList<>(List.of("mount", "-t", fsType));
    if (!options.isEmpty()) {
      argv.add("-o");
      argv.add(String.join(",", options));
    }
    argv.add(device.toString());
    argv.add(target.toString());
    runner.run(TIMEOUT, argv);
  }

  /**
   * Bind-mounts {@code source} (a directory or a device node) onto {@code target}; read-only binds
   * need a second remount, which the kernel requires for bind mounts.
   */
  public void bind(Path source, Path target, boolean readOnly, List<String> options) {
    runner.run(TIMEOUT, List.of("mount", "--bind", source.toString(), target.toString()));
    if (readOnly || !options.isEmpty()) {
      List<String> remount = new ArrayList<>(List.of("remount", "bind"));
      if (readOnly) {
        remount.add("ro");
      }
      remount.addAll(options);
      try {
        runner.run(TIMEOUT, List.of("mount", "-o", String.join(",", remount), target.toString()));
      } catch (HostCommandException e) {
        runner.runAllowingFailure(TIMEOUT, List.of("umount", target.toString()));
        throw e;
      }
    }
  }

  /**
   * Unmounts {@code target}. A busy target is an error, never lazily detached: a lazy unmount would
   * report success while the filesystem stays in use.
   */
  public void unmount(Path target) {
    runner.run(TIMEOUT, List.of("umount", target.toString()));
  }
}
