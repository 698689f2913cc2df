package io.thinvol.testing.real;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The directory of one fixture run (etcd's data, the certificates, the logs), named {@value
 * #PREFIX}*, with a record of who made it: the JVM ({@value #OWNER}) and every process it started
 * ({@value #CHILDREN}), each as pid and start time. A run whose JVM is gone (killed, crashed) is
 * stale: {@link #sweepStale} stops its processes and removes it. A process is stopped only if it is
 * still the one recorded (same pid, same start time) and its command line names the run's own
 * directory, so no other program is ever touched, whatever pid it reuses.
 */
final class RunDirectory {

  private static final Logger log = LoggerFactory.getLogger(RunDirectory.class);
  static final String PREFIX = "thinvol-kubeapi-";
  static final String OWNER = "owner";
  static final String CHILDREN = "children";

  /** A run directory without an owner record is one being made; older than this, abandoned. */
  private static final Duration UNOWNED_GRACE = Duration.ofMinutes(10);

  private final Path path;

  private RunDirectory(Path path) {
    this.path = path;
  }

  /** A new run directory under {@code parent}, owned by this JVM. */
  static RunDirectory create(Path parent) {
    try {
      Path path = Files.createTempDirectory(parent, PREFIX);
      Files.writeString(path.resolve(OWNER), record("jvm", ProcessHandle.current()));
      return new RunDirectory(path);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  Path path() {
    return path;
  }

  /** Records a process this run started, before anything can kill the JVM unnoticed. */
  void recordChild(String name, ProcessHandle process) {
    try {
      Files.writeString(
          path.resolve(CHILDREN),
          record(name, process),
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Removes the directory (its processes must have ended). */
  void delete() {
    deleteTree(path);
  }

  /**
   * Stops the processes of the runs under {@code parent} whose JVM has ended, and removes those
   * runs. Runs of live JVMs (another module's build, another developer's) are left alone.
   *
   * @return the runs removed
   */
  static List<Path> sweepStale(Path parent) {
    List<Path> removed = new ArrayList<>();
    try (DirectoryStream<Path> runs = Files.newDirectoryStream(parent, PREFIX + "*")) {
      for (Path run : runs) {
        if (Files.isDirectory(run) && isStale(run)) {
          for (String child : lines(run.resolve(CHILDREN))) {
            stopIfStillOurs(run, child);
          }
          deleteTree(run);
          removed.add(run);
          log.info("removed the stale kube-apiserver run {} (its JVM has ended)", run);
        }
      }
    } catch (IOException e) {
      log.warn("cannot look for stale kube-apiserver runs under {}: {}", parent, e.toString());
    }
    return removed;
  }

  private static boolean isStale(Path run) throws IOException {
    List<String> owner = lines(run.resolve(OWNER));
    if (owner.isEmpty()) {
      Instant made = Files.getLastModifiedTime(run).toInstant();
      return made.plus(UNOWNED_GRACE).isBefore(Instant.now());
    }
    return living(owner.get(0)).isEmpty();
  }

  /** The process a record line names, if it still runs with the recorded start time. */
  private static Optional<ProcessHandle> living(String line) {
    String[] fields = line.trim().split(" ");
    if (fields.length != 3) {
      return Optional.empty();
    }
    long pid = Long.parseLong(fields[1]);
    return ProcessHandle.of(pid)
        .filter(ProcessHandle::isAlive)
        .filter(p -> p.info().startInstant().map(Instant::toString).orElse("").equals(fields[2]));
  }

  private static void stopIfStillOurs(Path run, String child) {
    living(child)
        .filter(p -> p.info().arguments().stream().flatMap(Stream::of).anyMatch(a -> names(a, run)))
        .ifPresent(
            p -> {
              log.info("stopping {} of the stale run {}", child.trim(), run);
              p.destroyForcibly();
              p.onExit().join();
            });
  }

  private static boolean names(String argument, Path run) {
    return argument.equals(run.toString())
        || argument.startsWith(run + "/")
        || argument.contains("=" + run + "/");
  }

  private static String record(String name, ProcessHandle process) {
    String start =
        process
            .info()
            .startInstant()
            .map(Instant::toString)
            .orElseThrow(() -> new IllegalStateException("no start time for " + process.pid()));
    return name + " " + process.pid() + " " + start + "\n";
  }

  private static List<String> lines(Path file) throws IOException {
    return Files.exists(file)
        ? Files.readAllLines(file, StandardCharsets.UTF_8).stream()
            .filter(l -> !l.isBlank())
            .toList()
        : List.of();
  }

  private static void deleteTree(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> files = Files.walk(root)) {
      for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(file);
      }
    } catch (IOException e) {
      log.warn("cannot remove {}: {}", root, e.toString());
    }
  }
}
