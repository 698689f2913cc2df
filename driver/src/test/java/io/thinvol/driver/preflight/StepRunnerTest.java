package io.thinvol.driver.preflight;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import java.nio.file.NoSuchFileException;
import org.junit.jupiter.api.Test;

/** The failure line a person reads: the message written for them, not a Java class. */
class StepRunnerTest {

  @Test
  void aFailureIsDescribedByItsMessage() {
    assertThat(StepRunner.describe(new IllegalStateException("missing mkfs.xfs; install xfsprogs")))
        .isEqualTo("missing mkfs.xfs; install xfsprogs");
    assertThat(
            StepRunner.describe(
                Status.FAILED_PRECONDITION.withDescription("volume is busy").asRuntimeException()))
        .isEqualTo("FAILED_PRECONDITION: volume is busy");
    assertThat(StepRunner.describe(new NoSuchFileException("/var/tmp/gone")))
        .isEqualTo("cannot read or write a file: /var/tmp/gone");
  }

  @Test
  void onlyAnErrorWithoutAMessageIsNamedByItsClass() {
    assertThat(StepRunner.describe(new NullPointerException()))
        .startsWith("failed without a message (java.lang.NullPointerException)");
  }
}
