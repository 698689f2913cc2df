package io.thinvol.driver.host;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Releases everything the host holds under a directory: mounts (deepest first) and loop devices
 * backed by files there. For the preflight's and the tests' temporary directories only, never for a
 * data dir in use.
 */
public final class HostCleanup {

  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private HostCleanup() {}

  /** Returns what it found (each released if it could be); empty when nothing was held. */
  public static List<String> release(Path directory) {
    CommandRunner runner = new ProcessCommandRunner();
    List<String> leftovers = new ArrayList<>();
    List<MountEntry> mounts = new ArrayList<>(MountTable.read().under(directory));
    mounts.sort(Comparator.comparing((MountEntry m) -> m.mountPoint().getNameCount()).reversed());
    for (MountEntry mount : mounts) {
      CommandResult result =
          runner.runAllowingFailure(TIMEOUT, List.of("umount", mount.mountPoint().toString()));
      leftovers.add(
          "mount "
              + mount.mountPoint()
              + (result.succeeded() ? "" : " (" + result.describe() + ")"));
    }
    LoopDevices loops = new LoopDevices(runner);
    Path base = directory.toAbsolutePath().normalize();
    for (LoopDevice device : loops.all()) {
      if (device.image().startsWith(base)) {
        String found =
            "loop device of " + device.image() + (device.readOnly() ? " (read-only)" : "");
        try {
          loops.detach(device);
          leftovers.add(found);
        } catch (HostCommandException e) {
          leftovers.add(found + " (" + e.getMessage() + ")");
        }
      }
    }
    return leftovers;
  }
}
