package io.thinvol.e2e.support;

import java.time.Duration;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Polls the cluster's or the host's state until it holds or a deadline passes. */
public final class Waits {

  private static final Duration FIRST_POLL = Duration.ofMillis(200);
  private static final Duration LONGEST_POLL = Duration.ofSeconds(2);

  private Waits() {}

  /**
   * The first value {@code probe} returns, polled until {@code within} has passed; an {@link
   * AssertionError} naming {@code what} and the last state {@code probe} saw otherwise. A probe
   * that throws counts as "not yet" (the API server or a pod may be briefly unreachable), and its
   * last error is reported.
   */
  public static <T> T until(String what, Duration within, Supplier<Optional<T>> probe) {
    return until(what, within, probe, () -> "");
  }

  /**
   * As {@link #until(String, Duration, Supplier)}, naming {@code state} (e.g. a status) on a
   * timeout.
   */
  public static <T> T until(
      String what, Duration within, Supplier<Optional<T>> probe, Supplier<Object> state) {
    long deadline = System.nanoTime() + within.toNanos();
    Duration pause = FIRST_POLL;
    RuntimeException lastError = null;
    while (true) {
      try {
        Optional<T> value = probe.get();
        if (value.isPresent()) {
          return value.get();
        }
      } catch (RuntimeException e) {
        lastError = e;
      }
      if (System.nanoTime() > deadline) {
        AssertionError timeout =
            new AssertionError(
                "waited " + within.toSeconds() + " s for " + what + ", in vain" + shown(state));
        if (lastError != null) {
          timeout.initCause(lastError);
        }
        throw timeout;
      }
      pause(pause);
      pause =
          pause.multipliedBy(2).compareTo(LONGEST_POLL) > 0 ? LONGEST_POLL : pause.multipliedBy(2);
    }
  }

  /** Waits until {@code condition} holds. */
  public static void untilTrue(String what, Duration within, BooleanSupplier condition) {
    until(
        what,
        within,
        () -> condition.getAsBoolean() ? Optional.of(Boolean.TRUE) : Optional.empty());
  }

  private static String shown(Supplier<Object> state) {
    try {
      String text = String.valueOf(state.get());
      return text.isEmpty() ? "" : "; last seen: " + text;
    } catch (RuntimeException e) {
      return "; last state unreadable: " + e;
    }
  }

  private static void pause(Duration pause) {
    try {
      Thread.sleep(pause.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting", e);
    }
  }
}
