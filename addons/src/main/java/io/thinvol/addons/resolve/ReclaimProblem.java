package io.thinvol.addons.resolve;

/**
 * Why a reclaim cannot go ahead now. A lasting problem (the PVC belongs to another driver) ends the
 * job; a passing one (the driver pod restarts) is retried with backoff.
 */
public final class ReclaimProblem extends Exception {

  private final String reason;
  private final boolean lasting;

  private ReclaimProblem(String reason, String message, boolean lasting) {
    super(message);
    this.reason = reason;
    this.lasting = lasting;
  }

  /** Retrying cannot help: the job ends with this reason. */
  public static ReclaimProblem lasting(String reason, String format, Object... args) {
    return new ReclaimProblem(reason, String.format(format, args), true);
  }

  /** It may pass: the job backs off and tries again. */
  public static ReclaimProblem passing(String reason, String format, Object... args) {
    return new ReclaimProblem(reason, String.format(format, args), false);
  }

  /** A CamelCase reason for conditions and Events. */
  public String reason() {
    return reason;
  }

  public boolean lasting() {
    return lasting;
  }
}
