package io.thinvol.driver.host;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Releases everything the host holds under a directory: mounts (deepest first) and loop devices
 * backed by files there. For the preflight's and the tests' temporary directories only, never for a
 * data dir in use.
 */
public final class HostCleanup {

  private HostCleanup() {}

  /** Returns what it found (each released if it could be); empty when nothing was held. */
  public static List<String> release(Path directory) {
    CommandRunner runner = new ProcessCommandRunner();
    List<String> leftovers = new ArrayList<>();
    Mounts unmounts = new Mounts(runner);
    for (Path mountPoint : MountTable.read().mountPointsUnder(directory)) {
      String found = "mount " + mountPoint;
      try {
        unmounts.unmountAll(mountPoint);
        leftovers.add(found);
      } catch (HostCommandException e) {
        leftovers.add(found + " (" + e.getMessage() + ")");
      }
    }
    LoopDevices loops = new LoopDevices(runner);
    Path base = directory.toAbsolutePath().normalize();
    Set<FileId> files = filesUnder(base);
    for (LoopDevice device : loops.all()) {
      if (files.contains(device.backingFile()) || device.backingName().startsWith(base + "/")) {
        String found =
            "loop device of " + device.backingName() + (device.readOnly() ? " (read-only)" : "");
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

  /**
   * The regular files under {@code base} (read after unmounting): a loop device attached in another
   * mount namespace names its file by a path that need not start with {@code base}.
   */
  private static Set<FileId> filesUnder(Path base) {
    Set<FileId> files = new HashSet<>();
    if (!Files.isDirectory(base)) {
      return files;
    }
    try (Stream<Path> paths = Files.walk(base)) {
      paths
          .filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS))
          .forEach(p -> FileId.of(p).ifPresent(files::add));
    } catch (IOException | UncheckedIOException e) {
      throw new HostCommandException("cannot list the files under " + base, e);
    }
    return files;
  }
}
