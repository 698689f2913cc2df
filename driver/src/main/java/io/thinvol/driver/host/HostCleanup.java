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

  /** Returns what could not be released (empty when everything was). */
  public static List<String> release(Path directory) {
    CommandRunner runner = new ProcessCommandRunner();
    List<String> leftovers = new ArrayList<>();
    List<MountEntry> mounts = new ArrayList<>(MountTable.read().under(directory));
    mounts.sort(Comparator.comparing((MountEntry m) -> m.mountPoint().getNameCount()).reversed());
    for (MountEntry mount : mounts) {
      CommandResult result =
          runner.runAllowingFailure(TIMEOUT, List.of("umount", mount.mountPoint().toString()));
      if (!result.succeeded()) {
        leftovers.add("mount " + mount.mountPoint() + ": " + result.describe());
      }
    }
    LoopDevices loops = new LoopDevices(runner);
    Path base = directory.toAbsolutePath().normalize();
    for (Path image : loops.attachedImages()) {
      if (image.startsWith(base)) {
        try {
          loops.detach(image);
        } catch (HostCommandException e) {
          leftovers.add("loop device of " + image + ": " + e.getMessage());
        }
      }
    }
    return leftovers;
  }
}
