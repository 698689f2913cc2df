package io.thinvol.driver.host;

/**
 * A host command or system call failed, timed out or could not be started. The message names the
 * command or call and, for a system call, what its errno means.
 */
public class HostCommandException extends RuntimeException {

  private final transient CommandResult result;

  public HostCommandException(String message) {
    this(message, (CommandResult) null);
  }

  /** A command killed because it outlived its timeout. */
  public static HostCommandException timedOut(String message) {
    HostCommandException e = new HostCommandException(message);
    e.timedOut = true;
    return e;
  }

  private boolean timedOut;

  public boolean isTimeout() {
    return timedOut;
  }

  public HostCommandException(String message, CommandResult result) {
    super(message);
    this.result = result;
  }

  public HostCommandException(String message, Throwable cause) {
    super(message, cause);
    this.result = null;
  }

  /** A system call that failed with {@code errno}. */
  HostCommandException(String message, int errno, Throwable cause) {
    super(message, cause);
    this.result = null;
    this.errno = errno;
  }

  private int errno;

  /** The errno of a failed system call; 0 for a command or a timeout. */
  public int errno() {
    return errno;
  }

  /** The target was in use (EBUSY, or a command saying so). */
  public boolean isBusy() {
    return errno == Errno.EBUSY || stderrContains("busy");
  }

  /** The finished command, or null when it never ran to completion. */
  public CommandResult result() {
    return result;
  }

  /** True when the command ran and its stderr contains {@code fragment} (case-insensitive). */
  public boolean stderrContains(String fragment) {
    return result != null && result.stderr().toLowerCase().contains(fragment.toLowerCase());
  }
}
