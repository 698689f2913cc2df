package io.thinvol.operator.move;

/**
 * Why a move cannot go on. A refusal ends a move before it made anything; a failure of a later step
 * removes what it made, or rolls the claim back to its old volume.
 */
final class MoveFailure extends Exception {

  private static final long serialVersionUID = 1L;

  private final String reason;
  private final boolean refusal;

  private MoveFailure(String reason, String message, boolean refusal) {
    super(message, null, false, false);
    this.reason = reason;
    this.refusal = refusal;
  }

  static MoveFailure refused(String reason, String message) {
    return new MoveFailure(reason, message, true);
  }

  static MoveFailure failed(String reason, String message) {
    return new MoveFailure(reason, message, false);
  }

  String reason() {
    return reason;
  }

  boolean refusal() {
    return refusal;
  }
}
