package io.thinvol.e2e.support;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.math.BigInteger;
import java.util.List;

/** The backend's node pods, as the operator's DaemonSet makes them. */
public final class NodePods {

  /** Growing a mounted ext4 needs it; these VMs withhold it even from root. */
  public static final int CAP_SYS_RESOURCE = 24;

  private NodePods() {}

  public static List<Pod> all(KubernetesClient client) {
    return all(client, Names.BACKEND);
  }

  public static List<Pod> all(KubernetesClient client, String backend) {
    return client
        .pods()
        .inNamespace(Names.OPERATOR)
        .withLabel(Names.NODE_POD_SELECTOR_KEY, Names.NODE_POD_SELECTOR_VALUE)
        .withLabel("thinvol.io/backend", backend)
        .list()
        .getItems();
  }

  /** The backend's node pod on the host's node (the node whose data dir the host holds). */
  public static Pod onHost(KubernetesClient client) {
    return onHost(client, Names.BACKEND);
  }

  public static Pod onHost(KubernetesClient client, String backend) {
    return on(client, backend, World.current().settings().hostNode());
  }

  /** The backend's one node pod on {@code node}. */
  public static Pod on(KubernetesClient client, String backend, String node) {
    List<Pod> pods =
        all(client, backend).stream().filter(p -> node.equals(p.getSpec().getNodeName())).toList();
    if (pods.size() != 1) {
      throw new AssertionError(
          "expected one node pod of backend "
              + backend
              + " on node "
              + node
              + ", found "
              + pods.size());
    }
    return pods.get(0);
  }

  /** Whether the driver container's effective capabilities hold {@code capability}. */
  public static boolean driverHolds(KubernetesClient client, int capability) {
    String status =
        Workloads.exec(
            client,
            Names.OPERATOR,
            onHost(client).getMetadata().getName(),
            "driver",
            "cat /proc/self/status");
    String effective =
        status
            .lines()
            .filter(l -> l.startsWith("CapEff:"))
            .findFirst()
            .orElseThrow()
            .substring(7)
            .trim();
    return new BigInteger(effective, 16).testBit(capability);
  }
}
