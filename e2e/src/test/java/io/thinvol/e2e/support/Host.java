package io.thinvol.e2e.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The node, seen from the host the suite runs on (the single-node cluster's node): allocation of
 * image files as {@code du} reports it, loop devices, mounts.
 */
public final class Host {

  private static final Duration COMMAND_LIMIT = Duration.ofMinutes(20);

  private Host() {}

  /** A program the suite would run is not installed. */
  public static final class CommandMissing extends RuntimeException {
    CommandMissing(String command, IOException cause) {
      super(command + " is not installed", cause);
    }
  }

  /** A loop device and the file behind it (its path as the kernel names it, its device, inode). */
  public record Loop(
      String device,
      String backingFile,
      boolean directIo,
      String backingDevice,
      String backingInode) {}

  public static String run(String... command) {
    return run(Map.of(), List.of(command));
  }

  /** A finished command. */
  public record Result(int code, String output, String error) {}

  /** Runs a command to its end; its output, or an {@link AssertionError} with its error output. */
  public static String run(Map<String, String> environment, List<String> command) {
    return succeeded(command, exec(environment, command));
  }

  /**
   * The output of a command that ended well, or an {@link AssertionError} with its error output.
   */
  static String succeeded(List<String> command, Result result) {
    if (result.code() != 0) {
      throw new AssertionError(
          String.join(" ", command)
              + " failed ("
              + result.code()
              + "): "
              + result.error()
              + result.output());
    }
    return result.output();
  }

  /** Runs a command to its end, whatever its exit code. */
  public static Result exec(Map<String, String> environment, List<String> command) {
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().putAll(environment);
    Process process;
    try {
      process = builder.start();
    } catch (IOException e) {
      throw new CommandMissing(command.get(0), e);
    }
    try {
      process.getOutputStream().close();
      CompletableFuture<String> error =
          CompletableFuture.supplyAsync(() -> read(process.getErrorStream()));
      String output = read(process.getInputStream());
      if (!process.waitFor(COMMAND_LIMIT.toSeconds(), TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new AssertionError(String.join(" ", command) + " did not end in " + COMMAND_LIMIT);
      }
      return new Result(process.exitValue(), output, error.join());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private static String read(java.io.InputStream in) {
    try {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The bytes a file occupies on the disk, as {@code du --block-size=1} counts them. */
  public static long allocatedBytes(Path file) {
    String out = run("du", "--block-size=1", file.toString()).trim();
    return Long.parseLong(out.split("\\s+")[0]);
  }

  /**
   * The loop devices backed by {@code file}, found by its device and inode: the kernel names a
   * backing file by the path it had in the mount namespace that attached it, which for a driver
   * container that has since restarted is no path of the host's.
   */
  public static List<Loop> loopsOf(Path file) {
    String[] stat = run("stat", "--format", "%d %i", file.toString()).trim().split(" ");
    long dev = Long.parseLong(stat[0]);
    String majorMinor =
        ((dev >>> 8) & 0xfff | ((dev >>> 32) & ~0xfffL))
            + ":"
            + ((dev & 0xff) | ((dev >>> 12) & ~0xffL));
    return loops().stream()
        .filter(l -> l.backingDevice().equals(majorMinor) && l.backingInode().equals(stat[1]))
        .toList();
  }

  /**
   * The loop devices backed by an image of any of these volumes or snapshots (by id), wherever the
   * kernel says the image is: the data dir's layout names each image's folder by its id.
   */
  public static List<Loop> loopsOfIds(Collection<String> ids) {
    return loops().stream()
        .filter(l -> ids.stream().anyMatch(id -> l.backingFile().contains("/" + id + "/disk.img")))
        .toList();
  }

  private static List<Loop> loops() {
    List<Loop> loops = new ArrayList<>();
    String table =
        run(
            "losetup",
            "--list",
            "--noheadings",
            "--raw",
            "--output",
            "NAME,DIO,BACK-MAJ:MIN,BACK-INO,BACK-FILE");
    for (String line : table.split("\n")) {
      String[] fields = line.trim().split(" ", 5);
      if (fields.length == 5) {
        loops.add(
            new Loop(
                fields[0],
                unescape(fields[4]).strip(),
                fields[1].equals("1"),
                unescape(fields[2]).strip(),
                unescape(fields[3]).strip()));
      }
    }
    return loops;
  }

  /** The host's mount points whose source or target names any of {@code needles}. */
  public static List<String> mountsNaming(String... needles) {
    try {
      return Files.readAllLines(Path.of("/proc/self/mountinfo")).stream()
          .map(Host::unescape)
          .filter(line -> Arrays.stream(needles).anyMatch(line::contains))
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Files (not directories) anywhere under {@code directory}; none when it does not exist. */
  public static List<Path> filesUnder(Path directory) {
    if (!Files.isDirectory(directory)) {
      return List.of();
    }
    try (var walk = Files.walk(directory)) {
      return walk.filter(Files::isRegularFile).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Deletes a directory and everything in it. */
  public static void deleteTree(Path directory) {
    try (var walk = Files.walk(directory)) {
      for (Path path : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * losetup and mountinfo write a space, tab, newline or backslash in a path as an octal escape.
   */
  static String unescape(String text) {
    return text.replace("\\040", " ")
        .replace("\\x20", " ")
        .replace("\\011", "\t")
        .replace("\\012", "\n")
        .replace("\\134", "\\");
  }
}
