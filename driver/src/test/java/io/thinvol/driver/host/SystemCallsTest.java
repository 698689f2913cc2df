package io.thinvol.driver.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.sun.jna.LastErrorException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The deadline of a system call: the caller stops waiting, a late success is undone. */
class SystemCallsTest {

  private final CommandRunner runner = new ProcessCommandRunner();

  @Test
  void aCallThatEndsAfterItsDeadlineIsUndoneWhenItEnds() throws Exception {
    CountDownLatch kernel = new CountDownLatch(1);
    CountDownLatch undone = new CountDownLatch(1);
    HostCall<String> slow =
        HostCall.of(List.of("FIFREEZE", "/slow"), () -> uninterruptibly(kernel, "frozen"))
            .undoneLateBy(result -> undone.countDown());

    long start = System.nanoTime();
    assertThatThrownBy(() -> runner.call(Duration.ofMillis(200), slow))
        .isInstanceOfSatisfying(HostCommandException.class, e -> assertThat(e.isTimeout()).isTrue())
        .hasMessageContaining("FIFREEZE /slow did not finish within");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    assertThat(undone.getCount()).as("not undone while still running").isEqualTo(1);

    kernel.countDown();
    assertThat(undone.await(10, TimeUnit.SECONDS)).as("undone once it ended").isTrue();
  }

  @Test
  void aCallInTimeIsNeverUndone() {
    AtomicBoolean undone = new AtomicBoolean();
    HostCall<String> quick =
        HostCall.of(List.of("syncfs", "/quick"), () -> "done")
            .undoneLateBy(result -> undone.set(true));
    assertThat(runner.call(Duration.ofSeconds(5), quick)).isEqualTo("done");
    assertThat(undone).isFalse();
  }

  @Test
  void aStoppableCallHasEndedWhenItsCallerHearsOfTheDeadline() {
    AtomicBoolean running = new AtomicBoolean();
    HostCall<Void> trim =
        HostCall.action(
                List.of("FITRIM", "/busy"),
                () -> {
                  running.set(true);
                  try {
                    while (!Thread.interrupted()) {
                      Thread.onSpinWait(); // one range after another
                    }
                  } finally {
                    running.set(false);
                  }
                })
            .stoppedAtDeadline();
    assertThatThrownBy(() -> runner.call(Duration.ofMillis(200), trim))
        .isInstanceOfSatisfying(
            HostCommandException.class, e -> assertThat(e.isTimeout()).isTrue());
    assertThat(running).as("nothing of it runs after the caller returned").isFalse();
  }

  /**
   * A deadline can pass before the worker thread has even begun the call (a loaded host, a deadline
   * already spent by the caller): the call is then never run, and its caller must not wait for it
   * to end.
   */
  @Test
  void aStoppableCallWhoseDeadlinePassedBeforeItBeganIsNotWaitedFor() {
    HostCall<Void> trim = HostCall.action(List.of("FITRIM", "/late"), () -> {}).stoppedAtDeadline();
    assertTimeoutPreemptively(
        Duration.ofSeconds(30),
        () -> {
          for (int i = 0; i < 2_000; i++) {
            try {
              runner.call(Duration.ZERO, trim);
            } catch (HostCommandException e) {
              assertThat(e.isTimeout()).as(e.getMessage()).isTrue();
            }
          }
        });
  }

  @Test
  void anErrnoBecomesAMessageNamingTheCallTheFileAndTheError() {
    HostCall<Void> failing =
        HostCall.action(
            List.of("umount", "/m"),
            () -> {
              throw new LastErrorException(Errno.EBUSY);
            });
    assertThatThrownBy(() -> runner.call(Duration.ofSeconds(5), failing))
        .isInstanceOfSatisfying(
            HostCommandException.class,
            e -> {
              assertThat(e.errno()).isEqualTo(Errno.EBUSY);
              assertThat(e.isBusy()).isTrue();
              assertThat(e.isTimeout()).isFalse();
            })
        .hasMessage(
            "umount /m failed: /m is busy: still mounted, or used by a process or by a mount"
                + " below it (EBUSY)");
    assertThatThrownBy(
            () ->
                runner.call(
                    Duration.ofSeconds(5), failing.meaning(Errno.EBUSY, "is in use by a pod")))
        .hasMessage("umount /m failed: /m is in use by a pod (EBUSY)");
  }

  @Test
  void mountOptionsAreMaskedInMessagesAsInCommandLines() {
    HostCall<Void> mount =
        HostCall.action(
            List.of("mount", "-t", "ext4", "-o", "pass=s3cret", "/dev/loop9", "/m"),
            () -> {
              throw new LastErrorException(Errno.EINVAL);
            });
    assertThatThrownBy(() -> runner.call(Duration.ofSeconds(5), mount))
        .hasMessageStartingWith("mount -t ext4 -o <options> /dev/loop9 /m failed:")
        .hasMessageNotContaining("s3cret");
  }

  private static String uninterruptibly(CountDownLatch kernel, String result) {
    boolean interrupted = false;
    while (true) {
      try {
        kernel.await();
        break;
      } catch (InterruptedException e) {
        interrupted = true; // as the kernel ignores it
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    return result;
  }
}
