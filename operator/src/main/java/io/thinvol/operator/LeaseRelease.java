package io.thinvol.operator;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.time.ZonedDateTime;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives up the operator's Lease when it stops on purpose (a rollout, a drain of its node), so that
 * the standby replica leads within its next retry instead of after the whole lease duration. JOSDK
 * builds fabric8's elector without {@code releaseOnCancel}; this does what that flag does, once the
 * controllers have stopped: an empty holder and a lease of one second, written only over the
 * version this process holds, so a Lease another replica took meanwhile is never touched.
 */
final class LeaseRelease {

  private static final Logger log = LoggerFactory.getLogger(LeaseRelease.class);

  private LeaseRelease() {}

  /** Releases the Lease {@code name} in {@code namespace} if {@code identity} holds it. */
  static void release(
      KubernetesClient client, String namespace, String name, String identity, Clock clock) {
    try {
      Lease held = client.leases().inNamespace(namespace).withName(name).get();
      if (held == null
          || held.getSpec() == null
          || !identity.equals(held.getSpec().getHolderIdentity())) {
        return;
      }
      ZonedDateTime now = ZonedDateTime.now(clock);
      Lease released =
          new LeaseBuilder(held)
              .editSpec()
              .withHolderIdentity(null)
              .withLeaseDurationSeconds(1)
              .withAcquireTime(now)
              .withRenewTime(now)
              .endSpec()
              .build();
      client.leases().inNamespace(namespace).resource(released).update();
      log.info("released the Lease {}: another replica may lead at once", name);
    } catch (KubernetesClientException e) {
      // A conflict means a renewal or another replica wrote it after our read; any other failure
      // leaves it to expire, as a killed process does.
      log.warn("could not release the Lease {} ({}); it expires by itself", name, e.getMessage());
    }
  }
}
