package io.thinvol.operator.replicate;

/** Why a replication cannot go on now: a CamelCase reason and a message a person can act on. */
final class ReplicationFailure extends Exception {

  private final String reason;

  ReplicationFailure(String reason, String message) {
    super(message, null, false, false);
    this.reason = reason;
  }

  String reason() {
    return reason;
  }
}
