package io.thinvol.driver.preflight;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The host tools the driver runs, with the Debian package of each (loop devices, mounts, trims,
 * freezes and syncs are system calls, see {@code io.thinvol.driver.host}): the preflight's first
 * step, and the check the build runs before any test ({@code java HostPrerequisites.java} from the
 * root POM, which is why this file uses nothing but the JDK).
 */
public final class HostPrerequisites {

  /** A command the driver runs and the Debian package that installs it. */
  record Tool(String command, String debianPackage) {}

  static final List<Tool> TOOLS =
      List.of(
          new Tool("blkid", "util-linux"),
          new Tool("fstrim", "util-linux"), // only the preflight's comparison runs it
          new Tool("mkfs.ext4", "e2fsprogs"),
          new Tool("e2fsck", "e2fsprogs"),
          new Tool("resize2fs", "e2fsprogs"),
          new Tool("mkfs.xfs", "xfsprogs"),
          new Tool("xfs_growfs", "xfsprogs"),
          new Tool("cp", "coreutils"),
          new Tool("sync", "coreutils")); // only the preflight's comparison runs it

  private HostPrerequisites() {}

  /**
   * Returns what the preflight prints when every tool is found on {@code path} (a PATH value).
   *
   * @throws IllegalStateException naming the missing tools and the packages that install them
   */
  static String check(String path) {
    List<Tool> missing = TOOLS.stream().filter(t -> find(t.command(), path) == null).toList();
    if (!missing.isEmpty()) {
      throw new IllegalStateException(
          "missing "
              + String.join(", ", missing.stream().map(Tool::command).toList())
              + "; on Debian or Ubuntu install them with: apt-get install -y "
              + String.join(" ", packages(missing)));
    }
    return "all " + TOOLS.size() + " found (" + String.join(", ", packages(TOOLS)) + ")";
  }

  private static Set<String> packages(List<Tool> tools) {
    Set<String> packages = new LinkedHashSet<>();
    tools.forEach(t -> packages.add(t.debianPackage()));
    return packages;
  }

  private static Path find(String command, String path) {
    for (String dir : (path == null ? "" : path).split(File.pathSeparator)) {
      if (dir.isEmpty()) {
        continue;
      }
      Path candidate = Path.of(dir, command);
      if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
        return candidate;
      }
    }
    return null;
  }

  /** The build's check: exits 1 with one line naming what to install. */
  public static void main(String[] args) {
    try {
      check(System.getenv("PATH"));
    } catch (IllegalStateException e) {
      System.err.println("thinvol's tests run the driver's host tools, " + e.getMessage());
      System.exit(1);
    }
  }
}
