package io.thinvol.driver.host;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Runs host programs as child processes with a deadline; output is captured, never inherited. */
public final class ProcessCommandRunner implements CommandRunner {

  private static final Logger log = LoggerFactory.getLogger(ProcessCommandRunner.class);
  private static final int MAX_CAPTURE = 64 * 1024;

  // Output is drained on its own threads so a chatty child never blocks on a full pipe; the
  // common ForkJoin pool is too small on a 2-core node for blocking reads.
  // Kills a command that outlives its timeout; the calling thread is blocked reading its output.
  private static final ScheduledExecutorService WATCHDOG =
      Executors.newSingleThreadScheduledExecutor(
          runnable -> {
            Thread thread = new Thread(runnable, "host-command-watchdog");
            thread.setDaemon(true);
            return thread;
          });

  private static final ExecutorService DRAINERS =
      Executors.newCachedThreadPool(
          runnable -> {
            Thread thread = new Thread(runnable, "host-command-output");
            thread.setDaemon(true);
            return thread;
          });

  @Override
  public CommandResult run(Duration timeout, List<String> argv) {
    CommandResult result = runAllowingFailure(timeout, argv);
    if (!result.succeeded()) {
      throw new HostCommandException(result.describe(), result);
    }
    return result;
  }

  @Override
  public CommandResult runAllowingFailure(Duration timeout, List<String> argv) {
    long start = System.nanoTime();
    Process process;
    try {
      process =
          new ProcessBuilder(argv)
              .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
              .start();
    } catch (IOException e) {
      throw new HostCommandException("cannot start " + argv.get(0) + ": " + e.getMessage(), e);
    }
    // stderr drains on its own thread while this one reads stdout: both pipes are always being
    // emptied (no deadlock on a full pipe) with one thread hand-off per command, not two.
    CompletableFuture<String> stderr = drain(process.getErrorStream());
    AtomicBoolean timedOut = new AtomicBoolean();
    ScheduledFuture<?> watchdog =
        WATCHDOG.schedule(
            () -> {
              timedOut.set(true);
              process.descendants().forEach(ProcessHandle::destroyForcibly);
              process.destroyForcibly();
            },
            timeout.toMillis(),
            TimeUnit.MILLISECONDS);
    try {
      String stdout = read(process.getInputStream());
      process.waitFor();
      watchdog.cancel(false);
      if (timedOut.get()) {
        throw HostCommandException.timedOut(
            CommandResult.shown(argv)
                + " did not finish within "
                + timeout.toSeconds()
                + "s; killed");
      }
      CommandResult result =
          new CommandResult(
              argv,
              process.exitValue(),
              stdout,
              stderr.get(5, TimeUnit.SECONDS),
              Duration.ofNanos(System.nanoTime() - start));
      log.debug(
          "{} -> {} in {} ms",
          CommandResult.shown(argv),
          result.exitCode(),
          result.elapsed().toMillis());
      return result;
    } catch (InterruptedException e) {
      watchdog.cancel(false);
      process.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new HostCommandException(CommandResult.shown(argv) + " was interrupted", e);
    } catch (ExecutionException | TimeoutException | IOException e) {
      watchdog.cancel(false);
      process.destroyForcibly();
      throw new HostCommandException("cannot read the output of " + argv.get(0), e);
    }
  }

  private static CompletableFuture<String> drain(InputStream stream) {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return read(stream);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        },
        DRAINERS);
  }

  /** Reads a stream to its end, keeping at most the first 64 KiB. */
  private static String read(InputStream stream) throws IOException {
    try (stream) {
      byte[] all = stream.readAllBytes();
      return new String(all, 0, Math.min(all.length, MAX_CAPTURE), StandardCharsets.UTF_8);
    }
  }
}
