package io.thinvol.driver.core;

import static io.thinvol.driver.core.SizePolicy.GIB;
import static io.thinvol.driver.core.SizePolicy.MIB;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import io.thinvol.driver.store.AccessType;
import org.junit.jupiter.api.Test;

class SizePolicyTest {

  private static final long MAX = 100 * GIB;

  @Test
  void defaultsAndRounding() {
    assertThat(SizePolicy.resolve(0, 0, MIB, MAX)).isEqualTo(GIB);
    assertThat(SizePolicy.resolve(0, 10 * MIB, MIB, MAX)).isEqualTo(10 * MIB);
    assertThat(SizePolicy.resolve(MIB + 1, 0, MIB, MAX)).isEqualTo(MIB + 4096);
    assertThat(SizePolicy.resolve(MIB + 1, MIB + 512, MIB, MAX)).isEqualTo(MIB + 512);
    assertThat(SizePolicy.resolve(5, 0, 16 * MIB, MAX)).isEqualTo(16 * MIB);
  }

  @Test
  void exactRequestsAreExactOrRefused() {
    assertThat(SizePolicy.resolve(20 * MIB, 20 * MIB, MIB, MAX)).isEqualTo(20 * MIB);
    assertCode(Status.Code.OUT_OF_RANGE, () -> SizePolicy.resolve(MIB + 1, MIB + 1, MIB, MAX));
    assertCode(Status.Code.OUT_OF_RANGE, () -> SizePolicy.resolve(0, 8 * MIB, 16 * MIB, MAX));
    assertCode(Status.Code.OUT_OF_RANGE, () -> SizePolicy.resolve(MAX + 1, 0, MIB, MAX));
    assertCode(
        Status.Code.OUT_OF_RANGE,
        () -> SizePolicy.resolve(Long.MAX_VALUE - 1, 0, MIB, Long.MAX_VALUE));
  }

  @Test
  void invalidRanges() {
    assertCode(Status.Code.INVALID_ARGUMENT, () -> SizePolicy.resolve(-1, 0, MIB, MAX));
    assertCode(Status.Code.INVALID_ARGUMENT, () -> SizePolicy.resolve(0, -1, MIB, MAX));
    assertCode(Status.Code.INVALID_ARGUMENT, () -> SizePolicy.resolve(2 * MIB, MIB, MIB, MAX));
  }

  @Test
  void minimumsFollowTheFilesystem() {
    assertThat(SizePolicy.minimum(AccessType.BLOCK, null)).isEqualTo(MIB);
    assertThat(SizePolicy.minimum(AccessType.MOUNT, "ext4")).isEqualTo(16 * MIB);
    assertThat(SizePolicy.minimum(AccessType.MOUNT, "xfs")).isEqualTo(300 * MIB);
  }

  private static void assertCode(Status.Code code, Runnable call) {
    assertThatThrownBy(call::run)
        .isInstanceOfSatisfying(CsiException.class, e -> assertThat(e.code()).isEqualTo(code));
  }
}
