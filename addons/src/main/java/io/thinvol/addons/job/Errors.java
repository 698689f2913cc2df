package io.thinvol.addons.job;

import io.grpc.Status;
import io.thinvol.addons.call.TokenUnreadable;

/** gRPC errors of the ReclaimSpace services in the words a person reads in the job's status. */
final class Errors {

  private Errors() {}

  /** Retrying cannot help: the spec says not to (UNIMPLEMENTED) or the request is wrong. */
  static boolean lasting(Status status) {
    return switch (status.getCode()) {
      case UNIMPLEMENTED, INVALID_ARGUMENT, NOT_FOUND -> true;
      default -> false;
    };
  }

  /** A CamelCase reason for a failed call. */
  static String reason(Status status) {
    if (operatorTokenUnreadable(status)) {
      return "TokenUnreadable";
    }
    return switch (status.getCode()) {
      case UNIMPLEMENTED -> "Unimplemented";
      case ABORTED -> "VolumeBusy";
      case DEADLINE_EXCEEDED -> "Timeout";
      case UNAVAILABLE -> "DriverUnreachable";
      case UNAUTHENTICATED, PERMISSION_DENIED -> "NotAuthorized";
      case NOT_FOUND -> "VolumeNotFound";
      case FAILED_PRECONDITION -> "NotReady";
      default -> "CallFailed";
    };
  }

  static String describe(Status status) {
    if (operatorTokenUnreadable(status)) {
      return status.getDescription(); // no call was made: the driver has no part in it
    }
    String detail = status.getDescription() == null ? "" : ": " + status.getDescription();
    String meaning =
        switch (status.getCode()) {
          case UNIMPLEMENTED -> "the driver cannot reclaim this volume (UNIMPLEMENTED)";
          case ABORTED -> "another operation on this volume is running (ABORTED)";
          case DEADLINE_EXCEEDED -> "the call did not finish within its timeout";
          case UNAVAILABLE -> "the driver pod cannot be reached";
          case UNAUTHENTICATED -> "the driver did not accept the operator's token";
          case PERMISSION_DENIED -> "the driver does not allow the operator's ServiceAccount";
          default -> status.getCode().name();
        };
    return meaning + detail;
  }

  private static boolean operatorTokenUnreadable(Status status) {
    return status.getCause() instanceof TokenUnreadable;
  }
}
