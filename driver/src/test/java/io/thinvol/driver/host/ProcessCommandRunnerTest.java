package io.thinvol.driver.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProcessCommandRunnerTest {

  private final ProcessCommandRunner runner = new ProcessCommandRunner();

  @Test
  void capturesOutputAndExitCode() {
    CommandResult result =
        runner.runAllowingFailure(
            Duration.ofSeconds(5), List.of("sh", "-c", "echo out; echo err >&2; exit 3"));
    assertThat(result.exitCode()).isEqualTo(3);
    assertThat(result.stdout()).isEqualTo("out\n");
    assertThat(result.stderr()).isEqualTo("err\n");
    assertThat(result.describe()).contains("exited 3").contains("err");
  }

  @Test
  void failureCarriesStderrInTheMessage() {
    assertThatThrownBy(() -> runner.run(Duration.ofSeconds(5), List.of("ls", "/no/such/path")))
        .isInstanceOf(HostCommandException.class)
        .hasMessageContaining("ls /no/such/path exited")
        .hasMessageContaining("No such file");
  }

  @Test
  void aCommandThatHangsIsKilledAtItsTimeout() {
    long start = System.nanoTime();
    assertThatThrownBy(
            () -> runner.run(Duration.ofMillis(300), List.of("sh", "-c", "sleep 30 & sleep 30")))
        .isInstanceOf(HostCommandException.class)
        .hasMessageContaining("did not finish");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
  }

  @Test
  void largeOutputOnBothStreamsDoesNotDeadlock() {
    CommandResult result =
        runner.run(
            Duration.ofSeconds(20),
            List.of(
                "sh",
                "-c",
                "head -c 300000 /dev/zero | tr '\\\\0' a >&2; head -c 300000 /dev/zero"));
    assertThat(result.stdout()).hasSize(64 * 1024);
    assertThat(result.stderr()).hasSize(64 * 1024);
  }

  @Test
  void aMissingProgramIsAClearError() {
    assertThatThrownBy(() -> runner.run(Duration.ofSeconds(5), List.of("no-such-program-xyz")))
        .isInstanceOf(HostCommandException.class)
        .hasMessageContaining("cannot start no-such-program-xyz");
  }

  @Test
  void mountOptionsAreMaskedWhereverACommandIsShown() {
    assertThat(
            CommandResult.shown(
                List.of("mount", "-t", "ext4", "-o", "user=me,pass=s3cret", "/dev/loop0", "/m")))
        .isEqualTo("mount -t ext4 -o <options> /dev/loop0 /m")
        .doesNotContain("s3cret");
    assertThatThrownBy(
            () ->
                runner.run(
                    Duration.ofSeconds(5),
                    List.of("mount", "-o", "pass=s3cret", "/nonexistent", "/nowhere")))
        .isInstanceOf(HostCommandException.class)
        .message()
        .doesNotContain("s3cret");
  }
}
