package io.thinvol.addons.call;

import static org.assertj.core.api.Assertions.assertThat;

import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Admission across jobs: per node, per volume, oldest first, and no ghosts in the queue. */
class ReclaimLimitsTest {

  private static final Instant T0 = Instant.parse("2026-11-22T06:00:00Z");
  private final ReclaimLimits limits = new ReclaimLimits();

  @Test
  void aNodeTakesItsLimitAndTheRestWaitOldestFirst() {
    assertThat(admit("a", "vol-1", 0)).isTrue();
    assertThat(admit("b", "vol-2", 1)).isTrue();
    assertThat(admit("d", "vol-4", 3)).isFalse();
    ReclaimLimits.Admission c =
        limits.tryAdmit(job("c"), "n1", "vol-3", 2, T0.plusSeconds(2), T0, j -> true);
    assertThat(c.admitted()).isFalse();
    assertThat(c.why())
        .isEqualTo(
            "waiting for node n1: 2 of 2 reclaims allowed there are running, 0 job(s) ahead");
    assertThat(limits.inFlightByNode()).containsEntry("n1", 2);

    assertThat(limits.release(job("a"))).containsExactlyInAnyOrder(job("c"), job("d"));
    assertThat(admit("d", "vol-4", 3)).as("c is older and still waiting").isFalse();
    assertThat(admit("c", "vol-3", 2)).isTrue();
  }

  @Test
  void oneCallPerVolumeAndABusyVolumeDoesNotHoldUpOthers() {
    assertThat(admit("a", "vol-1", 0)).isTrue();
    ReclaimLimits.Admission second =
        limits.tryAdmit(job("b"), "n1", "vol-1", 2, T0.plusSeconds(1), T0, j -> true);
    assertThat(second.admitted()).isFalse();
    assertThat(second.why()).isEqualTo("another reclaim of this volume is running (job a)");
    assertThat(admit("c", "vol-2", 2)).as("b waits for its volume, not in c's way").isTrue();
  }

  @Test
  void aJobDeletedWhileWaitingLeavesTheQueue() {
    assertThat(admit("a", "vol-1", 0)).isTrue();
    assertThat(admit1("b", "vol-2", 1)).isFalse();
    assertThat(admit1("c", "vol-3", 2)).isFalse();
    limits.release(job("a"));

    Set<ResourceID> gone = Set.of(job("b"));
    assertThat(
            limits
                .tryAdmit(job("c"), "n1", "vol-3", 1, T0.plusSeconds(2), T0, j -> !gone.contains(j))
                .admitted())
        .isTrue();
  }

  @Test
  void releasingTwiceChangesNothing() {
    assertThat(admit("a", "vol-1", 0)).isTrue();
    limits.release(job("a"));
    assertThat(limits.release(job("a"))).isEmpty();
    assertThat(limits.inFlightByNode()).isEmpty();
  }

  private boolean admit(String name, String volume, int secondsAfter) {
    return limits
        .tryAdmit(job(name), "n1", volume, 2, T0.plusSeconds(secondsAfter), T0, j -> true)
        .admitted();
  }

  private boolean admit1(String name, String volume, int secondsAfter) {
    return limits
        .tryAdmit(job(name), "n1", volume, 1, T0.plusSeconds(secondsAfter), T0, j -> true)
        .admitted();
  }

  private static ResourceID job(String name) {
    return new ResourceID(name, "apps");
  }
}
