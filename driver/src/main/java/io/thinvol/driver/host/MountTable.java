package io.thinvol.driver.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** A snapshot of the mounts this process sees, parsed from {@code /proc/self/mountinfo}. */
public final class MountTable {

  private final List<MountEntry> entries;

  private MountTable(List<MountEntry> entries) {
    this.entries = entries;
  }

  public static MountTable read() {
    return read(Path.of("/proc/self/mountinfo"));
  }

  static MountTable read(Path mountinfo) {
    try {
      return parse(Files.readAllLines(mountinfo));
    } catch (IOException e) {
      throw new HostCommandException("cannot read " + mountinfo, e);
    }
  }

  static MountTable parse(List<String> lines) {
    List<MountEntry> entries = new ArrayList<>(lines.size());
    for (String line : lines) {
      if (!line.isBlank()) {
        entries.add(parseLine(line));
      }
    }
    return new MountTable(List.copyOf(entries));
  }

  // Format: id parent major:minor root mount-point options [optional...] - fstype source super
  private static MountEntry parseLine(String line) {
    String[] fields = line.split(" ");
    int separator = Arrays.asList(fields).indexOf("-");
    if (separator < 6 || separator + 2 >= fields.length) {
      throw new HostCommandException("unexpected mountinfo line: " + line);
    }
    return new MountEntry(
        fields[2],
        unescape(fields[3]),
        Path.of(unescape(fields[4])),
        options(fields[5]),
        fields[separator + 1],
        unescape(fields[separator + 2]),
        separator + 3 < fields.length ? options(fields[separator + 3]) : Set.of());
  }

  private static Set<String> options(String field) {
    return new LinkedHashSet<>(Arrays.asList(field.split(",")));
  }

  /** mountinfo escapes space, tab, newline and backslash as three-digit octal. */
  static String unescape(String field) {
    if (field.indexOf('\\') < 0) {
      return field;
    }
    StringBuilder out = new StringBuilder(field.length());
    for (int i = 0; i < field.length(); i++) {
      char c = field.charAt(i);
      if (c == '\\' && i + 3 < field.length()) {
        String octal = field.substring(i + 1, i + 4);
        if (octal.chars().allMatch(d -> d >= '0' && d <= '7')) {
          out.append((char) Integer.parseInt(octal, 8));
          i += 3;
          continue;
        }
      }
      out.append(c);
    }
    return out.toString();
  }

  /** The topmost mount at exactly {@code mountPoint}, if something is mounted there. */
  public Optional<MountEntry> at(Path mountPoint) {
    Path wanted = mountPoint.toAbsolutePath().normalize();
    MountEntry found = null;
    for (MountEntry entry : entries) {
      if (entry.mountPoint().equals(wanted)) {
        found = entry; // later lines are mounted on top of earlier ones
      }
    }
    return Optional.ofNullable(found);
  }

  /** Mounts of the filesystem on {@code device} (the whole filesystem or a part of it). */
  public List<MountEntry> ofDevice(LoopDevice device) {
    return entries.stream().filter(e -> e.majorMinor().equals(device.majorMinor())).toList();
  }

  /** Bind mounts of the device node itself, as block volumes are published. */
  public List<MountEntry> ofDeviceNode(LoopDevice device) {
    String suffix = "/" + device.name();
    return entries.stream()
        .filter(e -> e.root().endsWith(suffix) && e.fsType().endsWith("tmpfs"))
        .toList();
  }

  /** Every mount at or below {@code directory}. */
  public List<MountEntry> under(Path directory) {
    Path base = directory.toAbsolutePath().normalize();
    return entries.stream().filter(e -> e.mountPoint().startsWith(base)).toList();
  }
}
