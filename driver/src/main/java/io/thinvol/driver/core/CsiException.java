package io.thinvol.driver.core;

import io.grpc.Status;

/**
 * A failure with the gRPC code the CSI spec assigns to it and a message a person can act on. The
 * gRPC layer turns it into a status; nothing else is allowed to reach the wire.
 */
public class CsiException extends RuntimeException {

  private final Status.Code code;

  public CsiException(Status.Code code, String message) {
    super(message, null, false, false);
    this.code = code;
  }

  public CsiException(Status.Code code, String message, Throwable cause) {
    super(message, cause, false, false);
    this.code = code;
  }

  public Status.Code code() {
    return code;
  }

  public static CsiException invalidArgument(String format, Object... args) {
    return new CsiException(Status.Code.INVALID_ARGUMENT, String.format(format, args));
  }

  public static CsiException notFound(String format, Object... args) {
    return new CsiException(Status.Code.NOT_FOUND, String.format(format, args));
  }

  public static CsiException alreadyExists(String format, Object... args) {
    return new CsiException(Status.Code.ALREADY_EXISTS, String.format(format, args));
  }

  public static CsiException failedPrecondition(String format, Object... args) {
    return new CsiException(Status.Code.FAILED_PRECONDITION, String.format(format, args));
  }

  public static CsiException outOfRange(String format, Object... args) {
    return new CsiException(Status.Code.OUT_OF_RANGE, String.format(format, args));
  }

  public static CsiException resourceExhausted(String format, Object... args) {
    return new CsiException(Status.Code.RESOURCE_EXHAUSTED, String.format(format, args));
  }

  public static CsiException aborted(String format, Object... args) {
    return new CsiException(Status.Code.ABORTED, String.format(format, args));
  }

  public static CsiException internal(String message, Throwable cause) {
    return new CsiException(Status.Code.INTERNAL, message, cause);
  }
}
