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
   * Makes a replica on {@code node} the leader: a leader elsewhere is deleted, and the Lease
   * awaited in other hands, until a pod on {@code node} holds it. The Lease is not given back on a
   * delete: it expires (15 s), and then any replica may win it, the deleted one's replacement too.
   *
   * @return the leader on {@code node}
   */
  public Pod leadOn(String node, Duration within) {
    long deadline = System.nanoTime() + within.toNanos();
    while (true) {
      Pod now =
          Waits.until(
              "the operator's Lease " + LEASE + " to be held", within, this::leader, this::where);
      if (node.equals(now.getSpec().getNodeName())) {
        return now;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            "no operator replica on node " + node + " won the Lease " + LEASE + ": " + where());
      }
      client.resource(now).delete();
      Waits.untilTrue(
          "the Lease " + LEASE + " to leave " + now.getMetadata().getName(),
          within,
          () ->
              leader()
                  .filter(p -> p.getMetadata().getUid().equals(now.getMetadata().getUid()))
                  .isEmpty());
    }
  }

  private List<String> where() {
    return pods().stream()
        .map(p -> p.getMetadata().getName() + " on " + p.getSpec().getNodeName())
        .toList();
  }
}
