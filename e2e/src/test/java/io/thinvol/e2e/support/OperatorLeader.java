package io.thinvol.e2e.support;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The operator's replicas and which of them leads: the holder of the Lease {@value #LEASE}
 * (docs/operator.md, "Running it"), whose identity is its pod's name.
 */
public final class OperatorLeader {

  public static final String LEASE = "thinvol-operator";

  private final KubernetesClient client;

  public OperatorLeader(KubernetesClient client) {
    this.client = client;
  }

  public List<Pod> pods() {
    return client
        .pods()
        .inNamespace(Names.OPERATOR)
        .withLabel("app.kubernetes.io/name", "thinvol-operator")
        .list()
        .getItems();
  }

  /** The pod named by the Lease, when it exists. */
  public Optional<Pod> leader() {
    Lease lease = client.leases().inNamespace(Names.OPERATOR).withName(LEASE).get();
    if (lease == null || lease.getSpec().getHolderIdentity() == null) {
      return Optional.empty();
    }
    String holder = lease.getSpec().getHolderIdentity();
    return pods().stream().filter(p -> p.getMetadata().getName().equals(holder)).findFirst();
  }

  /**
   * Makes a replica on {@code node} the leader: the leader elsewhere is deleted, and the Lease
   * awaited in the hands of a pod on {@code node} (the standby there, where the replicas spread).
   *
   * @return the leader on {@code node}
   */
  public Pod leadOn(String node, Duration within) {
    Optional<Pod> now = leader();
    if (now.isPresent() && !node.equals(now.get().getSpec().getNodeName())) {
      client.resource(now.get()).delete();
    }
    return Waits.until(
        "an operator replica on node " + node + " to hold the Lease " + LEASE,
        within,
        () -> leader().filter(p -> node.equals(p.getSpec().getNodeName())),
        () ->
            pods().stream()
                .map(p -> p.getMetadata().getName() + "@" + p.getSpec().getNodeName())
                .toList());
  }
}
