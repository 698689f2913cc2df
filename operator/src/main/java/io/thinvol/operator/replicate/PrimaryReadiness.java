package io.thinvol.operator.replicate;

import io.thinvol.api.kube.Conditions;

/**
 * Says on the replication when the claim's node is NotReady without being fenced: the one state in
 * which an admin waits for a failover that never comes by itself (a partitioned node may still
 * write), so the condition names the command that fences a node known to be down. Said again once
 * the node is Ready.
 */
final class PrimaryReadiness {

  static final String NOT_READY = "PrimaryNodeNotReady";
  static final String READY = "PrimaryNodeReady";

  private PrimaryReadiness() {}

  static void report(Replication replication, ReplicatedClaim claim) {
    String node = claim.node();
    boolean said =
        Conditions.find(replication.status().getConditions(), ReplicationConditions.DEGRADED)
            .filter(c -> "True".equals(c.getStatus()) && NOT_READY.equals(c.getReason()))
            .isPresent();
    if (replication.services().fence().up(node)) {
      if (said) {
        String ready = "node " + node + " is Ready again";
        replication.condition(ReplicationConditions.DEGRADED, false, READY, ready);
        replication.normal(READY, ready);
      }
      return;
    }
    String why =
        "node "
            + node
            + " of PersistentVolumeClaim "
            + replication.names().claim()
            + " is NotReady: its claim is not failed over while the node may still be writing"
            + " (a network partition); syncs wait for it. If the node is down for good, fence it"
            + " and the standby takes over: kubectl taint node "
            + node
            + " node.kubernetes.io/out-of-service=nodeshutdown:NoExecute";
    replication.condition(ReplicationConditions.DEGRADED, true, NOT_READY, why);
    replication.message(why);
    if (!said) {
      replication.warning(NOT_READY, why);
    }
  }
}
