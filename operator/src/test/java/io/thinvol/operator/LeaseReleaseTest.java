package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * An operator that stops on purpose (a rollout, a drain of its node) gives up its Lease, so the
 * standby leads within its next retry rather than once the lease has run out: the lease here is 30
 * s, the standby must lead within 5.
 */
class LeaseReleaseTest extends MockClusterTest {

  private static final Duration LONG_LEASE = Duration.ofSeconds(30);

  @Override
  LeaseTimes leaseTimes() {
    return new LeaseTimes(LONG_LEASE, Duration.ofSeconds(20), Duration.ofMillis(250));
  }

  @Test
  void aStoppedOperatorReleasesItsLeaseAndTheStandbyLeadsAtOnce() throws Exception {
    await("the operator leads", () -> leading.get());
    assertThat(lease().getSpec().getHolderIdentity()).isEqualTo("operator-under-test");

    stopOnPurpose();

    Lease released = lease();
    assertThat(released.getSpec().getHolderIdentity()).as("no holder").isNull();
    assertThat(released.getSpec().getLeaseDurationSeconds()).isEqualTo(1);
    CountDownLatch standbyLeads = new CountDownLatch(1);
    CompletableFuture<?> standby =
        client
            .leaderElector()
            .withConfig(
                new LeaderElectionConfigBuilder()
                    .withName("standby")
                    .withLock(new LeaseLock(NAMESPACE, OperatorRunner.LEASE, "standby"))
                    .withLeaseDuration(LONG_LEASE)
                    .withRenewDeadline(Duration.ofSeconds(20))
                    .withRetryPeriod(Duration.ofMillis(250))
                    .withLeaderCallbacks(
                        new LeaderCallbacks(standbyLeads::countDown, () -> {}, leader -> {}))
                    .build())
            .build()
            .start();
    try {
      assertThat(standbyLeads.await(5, TimeUnit.SECONDS))
          .as("the standby leads within 5 s of a %s lease", LONG_LEASE)
          .isTrue();
    } finally {
      standby.cancel(true);
    }
  }

  @Test
  void aLeaseAnotherReplicaHoldsIsLeftAlone() {
    await("the operator leads", () -> leading.get());
    stopOnPurpose();
    Lease other =
        client
            .leases()
            .inNamespace(NAMESPACE)
            .resource(
                new LeaseBuilder(lease())
                    .editSpec()
                    .withHolderIdentity("other-replica")
                    .endSpec()
                    .build())
            .update();

    LeaseRelease.release(
        client, NAMESPACE, OperatorRunner.LEASE, "operator-under-test", Clock.systemUTC());

    assertThat(lease().getMetadata().getResourceVersion())
        .as("not written")
        .isEqualTo(other.getMetadata().getResourceVersion());
    assertThat(lease().getSpec().getHolderIdentity()).isEqualTo("other-replica");
  }

  /** Closes the operator as its shutdown does; its leadership ends because it stopped. */
  private void stopOnPurpose() {
    operator.close();
    lostLeadership.set(false);
  }

  private Lease lease() {
    return client.leases().inNamespace(NAMESPACE).withName(OperatorRunner.LEASE).get();
  }
}
