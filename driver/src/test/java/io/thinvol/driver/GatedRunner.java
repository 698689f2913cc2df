package io.thinvol.driver;

import io.thinvol.driver.host.CommandResult;
import io.thinvol.driver.host.CommandRunner;
import io.thinvol.driver.host.HostCall;
import io.thinvol.driver.host.ProcessCommandRunner;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The real runner, with two controls over one command or system call (a program such as {@code
 * mkfs.ext4}, a call such as {@code FITRIM}, or the start of a command line such as {@code cp
 * --sparse=always}) so a test can keep it in flight: {@link #hold()} makes it wait at a gate until
 * {@link #release()}, {@link #hang()} replaces it by one that never ends, so the real timeout has
 * to end it. It records every command and call that ended, in order ({@link #finished()}).
 */
public final class GatedRunner implements CommandRunner {

  private final ProcessCommandRunner real = new ProcessCommandRunner();
  private final String program;
  private volatile CountDownLatch gate;
  private volatile CountDownLatch arrived = new CountDownLatch(1);
  private volatile boolean hang;
  private final List<List<String>> finished = new CopyOnWriteArrayList<>();

  public GatedRunner(String program) {
    this.program = program;
  }

  public void hold() {
    gate = new CountDownLatch(1);
    arrived = new CountDownLatch(1);
  }

  /** Waits until a held command has reached the gate. */
  public void awaitArrival() throws InterruptedException {
    if (!arrived.await(30, TimeUnit.SECONDS)) {
      throw new AssertionError(program + " never reached the gate");
    }
  }

  public void release() {
    gate.countDown();
  }

  public void hang(boolean enabled) {
    hang = enabled;
  }

  /** The argv of every command that ended (whatever its exit code), in the order they ended. */
  public List<List<String>> finished() {
    return List.copyOf(finished);
  }

  @Override
  public CommandResult run(Duration timeout, List<String> argv) {
    try {
      return real.run(timeout, intercept(argv));
    } finally {
      finished.add(argv);
    }
  }

  @Override
  public CommandResult runAllowingFailure(Duration timeout, List<String> argv) {
    try {
      return real.runAllowingFailure(timeout, intercept(argv));
    } finally {
      finished.add(argv);
    }
  }

  @Override
  public <T> T call(Duration timeout, HostCall<T> call) {
    try {
      if (!gated(call.shown())) {
        return real.call(timeout, call);
      }
      awaitGate();
      return real.call(timeout, hang ? call.doing(GatedRunner::never) : call);
    } finally {
      finished.add(call.shown());
    }
  }

  /** Stands in for a system call that never returns; only an interrupt ends it. */
  private static <T> T never() throws InterruptedException {
    new CountDownLatch(1).await();
    throw new AssertionError("unreachable");
  }

  private boolean gated(List<String> argv) {
    return (String.join(" ", argv) + " ").startsWith(program + " ");
  }

  private List<String> intercept(List<String> argv) {
    if (!gated(argv)) {
      return argv;
    }
    awaitGate();
    return hang ? List.of("sleep", "600") : argv;
  }

  private void awaitGate() {
    CountDownLatch held = gate;
    if (held != null) {
      arrived.countDown();
      try {
        held.await(60, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
