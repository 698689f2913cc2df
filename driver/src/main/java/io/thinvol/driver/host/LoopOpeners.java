package io.thinvol.driver.host;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Who keeps a loop device open, for an error a person can act on: the processes with the device
 * node among their open files, the devices stacked on it (device-mapper, md) and its mounts in this
 * mount namespace. Read only when a detach stays pending, never on the way to success.
 */
final class LoopOpeners {

  private static final Path PROC = Path.of("/proc");
  private static final Path SYS_BLOCK = Path.of("/sys/block");

  private LoopOpeners() {}

  /**
   * "PID 812 (systemd-udevd)", "holder dm-3", "mount at /mnt", ...; empty when none is visible from
   * here.
   */
  static List<String> of(LoopDevice device) {
    List<String> openers = new ArrayList<>(processes(device.path()));
    MountTable.read().ofDevice(device).stream()
        .map(m -> "mount at " + m.mountPoint())
        .distinct()
        .forEach(openers::add);
    holders(device.name()).forEach(h -> openers.add("holder " + h));
    return openers;
  }

  private static List<String> processes(Path node) {
    List<String> found = new ArrayList<>();
    try (DirectoryStream<Path> pids = Files.newDirectoryStream(PROC, "[0-9]*")) {
      for (Path pid : pids) {
        if (holdsOpen(pid, node)) {
          found.add("PID " + pid.getFileName() + " (" + command(pid) + ")");
        }
      }
    } catch (IOException e) {
      // /proc unreadable: the error message then names no process
    }
    return found;
  }

  private static boolean holdsOpen(Path pid, Path node) {
    try (DirectoryStream<Path> fds = Files.newDirectoryStream(pid.resolve("fd"))) {
      for (Path fd : fds) {
        if (node.equals(readLink(fd))) {
          return true;
        }
      }
    } catch (IOException e) {
      // the process ended while we looked
    }
    return false;
  }

  private static Path readLink(Path fd) {
    try {
      return Files.readSymbolicLink(fd);
    } catch (IOException e) {
      return null; // closed while we looked
    }
  }

  private static String command(Path pid) {
    try {
      return Files.readString(pid.resolve("comm")).strip();
    } catch (IOException e) {
      return "ended";
    }
  }

  private static List<String> holders(String name) {
    List<String> found = new ArrayList<>();
    try (DirectoryStream<Path> entries =
        Files.newDirectoryStream(SYS_BLOCK.resolve(name).resolve("holders"))) {
      entries.forEach(e -> found.add(e.getFileName().toString()));
    } catch (IOException e) {
      // detached meanwhile
    }
    return found;
  }
}
