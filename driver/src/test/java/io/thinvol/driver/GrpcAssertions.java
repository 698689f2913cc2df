package io.thinvol.driver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.assertj.core.api.ThrowableAssert;

/** Asserts the gRPC status of a failed call and that its message tells a person something. */
public final class GrpcAssertions {

  private GrpcAssertions() {}

  public static StatusRuntimeException assertCode(
      Status.Code code, ThrowableAssert.ThrowingCallable call) {
    StatusRuntimeException e = catchThrowableOfType(StatusRuntimeException.class, call);
    assertThat(e).as("the call should fail with %s", code).isNotNull();
    assertThat(e.getStatus().getCode()).as(e.getStatus().toString()).isEqualTo(code);
    assertThat(e.getStatus().getDescription()).as("a message a person can act on").isNotBlank();
    return e;
  }

  public static String message(StatusRuntimeException e) {
    return e.getStatus().getDescription();
  }
}
