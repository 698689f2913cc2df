package io.thinvol.driver.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class OperationLocksTest {

  private final OperationLocks locks = new OperationLocks();

  @Test
  void secondCallerIsAbortedAndLocksAreForgottenWhenReleased() throws Exception {
    try (OperationLocks.Held held = locks.tryAcquire("vol-1", "volume vol-1")) {
      Throwable refused =
          CompletableFuture.supplyAsync(
                  () -> {
                    try (OperationLocks.Held other = locks.tryAcquire("vol-1", "volume vol-1")) {
                      return null;
                    } catch (CsiException e) {
                      return e;
                    }
                  })
              .get(5, TimeUnit.SECONDS);
      assertThat(refused)
          .isInstanceOfSatisfying(
              CsiException.class, e -> assertThat(e.code()).isEqualTo(Status.Code.ABORTED))
          .hasMessageContaining("volume vol-1");
      try (OperationLocks.Held independent = locks.tryAcquire("vol-2", "volume vol-2")) {
        assertThat(locks.activeKeys()).isEqualTo(2);
      }
    }
    assertThat(locks.activeKeys()).isZero();
  }

  @Test
  void waitingCallerGetsTheLockWhenItIsReleased() throws Exception {
    OperationLocks.Held first = locks.tryAcquire("name", "name");
    CompletableFuture<Boolean> second =
        CompletableFuture.supplyAsync(
            () -> {
              try (OperationLocks.Held held =
                  locks.acquire("name", "name", Duration.ofSeconds(5))) {
                return true;
              }
            });
    Thread.sleep(100);
    assertThat(second).isNotDone();
    first.close();
    assertThat(second.get(5, TimeUnit.SECONDS)).isTrue();
    assertThat(locks.activeKeys()).isZero();
  }

  @Test
  void waitingGivesUpWithAborted() {
    try (OperationLocks.Held held = locks.tryAcquire("k", "k")) {
      assertThatThrownBy(
              () ->
                  CompletableFuture.runAsync(
                          () -> locks.acquire("k", "k", Duration.ofMillis(50)).close())
                      .join())
          .hasCauseInstanceOf(CsiException.class);
    }
    assertThat(locks.activeKeys()).isZero();
  }
}
