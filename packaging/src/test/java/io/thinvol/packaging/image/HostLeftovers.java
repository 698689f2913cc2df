package io.thinvol.packaging.image;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * What a container left on the host under a directory of its test: loop devices backed by a file
 * there ({@code losetup -l}) and mounts there (the host's {@code /proc/self/mountinfo}). Other
 * tests on this machine attach and mount too, so only paths under the test's own directory count.
 */
final class HostLeftovers {

  private HostLeftovers() {}

  static List<String> under(Path dir) throws IOException, InterruptedException {
    String prefix = dir.toString();
    Process losetup =
        new ProcessBuilder("losetup", "--list", "--noheadings", "--output", "NAME,BACK-FILE")
            .redirectErrorStream(true)
            .start();
    String devices = new String(losetup.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!losetup.waitFor(30, TimeUnit.SECONDS) || losetup.exitValue() != 0) {
      throw new IllegalStateException("losetup --list failed: " + devices);
    }
    List<String> left = new ArrayList<>();
    devices.lines().filter(l -> l.contains(prefix)).forEach(l -> left.add("loop " + l.strip()));
    try (Stream<String> lines = Files.lines(Path.of("/proc/self/mountinfo"))) {
      lines
          .map(l -> l.split(" ")[4])
          .filter(mountPoint -> mountPoint.startsWith(prefix))
          .forEach(mountPoint -> left.add("mount " + mountPoint));
    }
    return left;
  }
}
