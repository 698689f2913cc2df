package io.thinvol.driver.host;

/** A host command failed, timed out or could not be started. The message names the command. */
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

  /** The finished command, or null when it never ran to completion. */
  public CommandResult result() {
    return result;
  }

  /** True when the command ran and its stderr contains {@code fragment} (case-insensitive). */
  public boolean stderrContains(String fragment) {
    return result != null && result.stderr().toLowerCase().contains(fragment.toLowerCase());
  }
}
