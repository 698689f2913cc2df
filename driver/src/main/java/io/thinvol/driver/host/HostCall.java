package io.thinvol.driver.host;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * One piece of host work done in this process by system calls rather than by a program: what it is,
 * shown like a command line ({@code FITRIM /staging/vol}), the work itself, what an errno means for
 * it, and how to undo it when it finishes after its caller gave up waiting.
 *
 * @param shown its name and arguments, for logs, error messages and tests that watch the seam
 * @param work the system calls; a failing one throws {@link com.sun.jna.LastErrorException}
 * @param hints errno to what it means for this call (overrides {@link Errno}'s general meaning)
 * @param undo applied to the result of a call that ended after its deadline had passed: a freeze
 *     that took effect too late is thawed, a mount is unmounted, so nothing outlives the caller
 * @param stoppable the work is a series of short system calls that ends early once its thread is
 *     interrupted: at the deadline its caller interrupts it and waits for it to end, as a killed
 *     program is waited for, so none of it runs once the caller has returned
 */
public record HostCall<T>(
    List<String> shown,
    Work<T> work,
    Map<Integer, String> hints,
    Consumer<T> undo,
    boolean stoppable) {

  /** The system calls of a {@link HostCall}. */
  @FunctionalInterface
  public interface Work<T> {
    T run() throws Exception;
  }

  public HostCall {
    shown = List.copyOf(shown);
    hints = Map.copyOf(hints);
  }

  public static <T> HostCall<T> of(List<String> shown, Work<T> work) {
    return new HostCall<>(shown, work, Map.of(), result -> {}, false);
  }

  /** A call without a result. */
  public static HostCall<Void> action(List<String> shown, VoidWork work) {
    return of(
        shown,
        () -> {
          work.run();
          return null;
        });
  }

  /** The system calls of a {@link HostCall} without a result. */
  @FunctionalInterface
  public interface VoidWork {
    void run() throws Exception;
  }

  /** The same call, where {@code errno} means {@code meaning} (a sentence a person can act on). */
  public HostCall<T> meaning(int errno, String meaning) {
    Map<Integer, String> more = new HashMap<>(hints);
    more.put(errno, meaning);
    return new HostCall<>(shown, work, more, undo, stoppable);
  }

  /** The same call, undone by {@code undo} when it succeeds after its deadline. */
  public HostCall<T> undoneLateBy(Consumer<T> undo) {
    return new HostCall<>(shown, work, hints, undo, stoppable);
  }

  /** The same call, stopped at its deadline (its work checks for interrupts). */
  public HostCall<T> stoppedAtDeadline() {
    return new HostCall<>(shown, work, hints, undo, true);
  }

  /** The same call doing {@code other} instead (for tests that stand in for the kernel). */
  public HostCall<T> doing(Work<T> other) {
    return new HostCall<>(shown, other, hints, undo, stoppable);
  }
}
