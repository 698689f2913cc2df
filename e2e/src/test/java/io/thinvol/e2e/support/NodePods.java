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

  /** The one node pod of the backend (the cluster has one node). */
  public static Pod only(KubernetesClient client) {
    return only(client, Names.BACKEND);
  }

  public static Pod only(KubernetesClient client, String backend) {
    List<Pod> pods = all(client, backend);
    if (pods.size() != 1) {
      throw new AssertionError(
          "expected one node pod of backend " + backend + ", found " + pods.size());
    }
    return pods.get(0);
  }

  /** Whether the driver container's effective capabilities hold {@code capability}. */
  public static boolean driverHolds(KubernetesClient client, int capability) {
    String status =
        Workloads.exec(
            client,
            Names.OPERATOR,
            only(client).getMetadata().getName(),
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
