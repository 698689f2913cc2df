package io.thinvol.driver.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A snapshot of the mounts this process sees, parsed from {@code /proc/self/mountinfo}. A path is
 * asked about by what it resolves to ({@link #at}), following the mount tree as the kernel's path
 * walk does, never by the first or last line that names it: propagation can list one mount point
 * several times.
 */
public final class MountTable {

  private final List<MountEntry> entries;
  private final Map<Integer, List<MountEntry>> children = new HashMap<>();
  private final List<MountEntry> roots = new ArrayList<>();

  private MountTable(List<MountEntry> entries) {
    this.entries = entries;
    Set<Integer> ids = entries.stream().map(MountEntry::id).collect(Collectors.toSet());
    for (MountEntry entry : entries) {
      if (ids.contains(entry.parentId()) && entry.parentId() != entry.id()) {
        children.computeIfAbsent(entry.parentId(), id -> new ArrayList<>()).add(entry);
      } else {
        roots.add(entry); // the namespace's root (its parent is outside this process's view)
      }
    }
  }

  public static MountTable read() {
    return read(Path.of("/proc/self/mountinfo"));
  }

  /** The mounts as {@code mountinfo} lists them, e.g. another process's {@code mountinfo}. */
  public static MountTable read(Path mountinfo) {
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
    try {
      return new MountEntry(
          Integer.parseInt(fields[0]),
          Integer.parseInt(fields[1]),
          fields[2],
          unescape(fields[3]),
          Path.of(unescape(fields[4])),
          options(fields[5]),
          fields[separator + 1],
          unescape(fields[separator + 2]),
          separator + 3 < fields.length ? options(fields[separator + 3]) : Set.of());
    } catch (NumberFormatException e) {
      throw new HostCommandException("unexpected mountinfo line: " + line, e);
    }
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

  /**
   * The mount {@code mountPoint} reaches, if it is a mount point: the topmost of a stack, and of
   * several lines naming the path the one a path walk reaches (a copy that propagation put under a
   * mount covering it is not).
   */
  public Optional<MountEntry> at(Path mountPoint) {
    Path wanted = mountPoint.toAbsolutePath().normalize();
    return resolve(wanted).filter(entry -> entry.mountPoint().equals(wanted));
  }

  /**
   * The mount a path walk to {@code path} ends on: from the root, into the child mount crossed
   * first (the shortest mount point on the way; of equals, the later line, mounted on top).
   */
  private Optional<MountEntry> resolve(Path path) {
    MountEntry current = null;
    List<MountEntry> candidates = roots;
    for (int depth = 0; depth <= entries.size(); depth++) { // bounded even for a malformed table
      MountEntry next = null;
      for (MountEntry candidate : candidates) {
        if (path.startsWith(candidate.mountPoint())
            && (next == null
                || candidate.mountPoint().getNameCount() <= next.mountPoint().getNameCount())) {
          next = candidate;
        }
      }
      if (next == null) {
        break;
      }
      current = next;
      candidates = children.getOrDefault(current.id(), List.of());
    }
    return Optional.ofNullable(current);
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

  /** The mount points at or below {@code directory}, each once, the deepest first. */
  public List<Path> mountPointsUnder(Path directory) {
    return under(directory).stream()
        .map(MountEntry::mountPoint)
        .distinct()
        .sorted(Comparator.comparingInt(Path::getNameCount).reversed())
        .toList();
  }
}
