package io.thinvol.operator;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.api.v1alpha1.VolumeReplication;
import io.thinvol.api.v1alpha1.VolumeReplicationClass;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/** VolumeReplications and their classes as an admin makes them, and the node changes they meet. */
final class VolumeReplications {

  static final String OUT_OF_SERVICE = "node.kubernetes.io/out-of-service";

  private VolumeReplications() {}

  static VolumeReplicationClass createClass(
      KubernetesClient client, String name, String driver, String interval) {
    return client
        .resource(
            Serialization.unmarshal(
                """
                apiVersion: thinvol.io/v1alpha1
                kind: VolumeReplicationClass
                metadata:
                  name: %s
                spec:
                  provisioner: %s
                  parameters:
                    schedulingInterval: %s
                """
                    .formatted(name, driver, interval),
                VolumeReplicationClass.class))
        .create();
  }

  static VolumeReplication create(
      KubernetesClient client,
      String namespace,
      String name,
      String replicationClass,
      String claim,
      boolean autoResync) {
    return client
        .resource(
            Serialization.unmarshal(
                """
                apiVersion: thinvol.io/v1alpha1
                kind: VolumeReplication
                metadata:
                  name: %s
                  namespace: %s
                spec:
                  volumeReplicationClass: %s
                  dataSource:
                    kind: PersistentVolumeClaim
                    name: %s
                  replicationState: primary
                  autoResync: %s
                """
                    .formatted(name, namespace, replicationClass, claim, autoResync),
                VolumeReplication.class))
        .create();
  }

  static VolumeReplication get(KubernetesClient client, String namespace, String name) {
    return client.resources(VolumeReplication.class).inNamespace(namespace).withName(name).get();
  }

  /** The replication once {@code reached} holds of it; a timeout fails with its status. */
  static VolumeReplication await(
      KubernetesClient client,
      String namespace,
      String name,
      String what,
      Duration timeout,
      Predicate<VolumeReplication> reached) {
    try {
      return MockClusterTest.await(
          name + ": " + what,
          timeout,
          () -> {
            VolumeReplication now = get(client, namespace, name);
            return now != null && now.getStatus() != null && reached.test(now) ? now : null;
          });
    } catch (AssertionError e) {
      VolumeReplication now = get(client, namespace, name);
      throw new AssertionError(
          e.getMessage() + "; its status: " + Serialization.asYaml(now.getStatus()), e);
    }
  }

  /** Kubernetes' word that the node is dead and fenced (non-graceful node shutdown). */
  static void outOfService(KubernetesClient client, String node, boolean fenced) {
    client
        .nodes()
        .withName(node)
        .edit(
            n -> {
              if (n.getSpec() == null) {
                n.setSpec(new io.fabric8.kubernetes.api.model.NodeSpec());
              }
              List<io.fabric8.kubernetes.api.model.Taint> taints =
                  new ArrayList<>(
                      n.getSpec().getTaints() == null ? List.of() : n.getSpec().getTaints());
              taints.removeIf(t -> OUT_OF_SERVICE.equals(t.getKey()));
              if (fenced) {
                taints.add(
                    new TaintBuilder()
                        .withKey(OUT_OF_SERVICE)
                        .withValue("nodeshutdown")
                        .withEffect("NoExecute")
                        .build());
              }
              n.getSpec().setTaints(taints);
              return n;
            });
  }

  /** The node's kubelet reports it Ready (or not). */
  static void ready(KubernetesClient client, String node, boolean ready) {
    Node now = client.nodes().withName(node).get();
    NodeStatus status = now.getStatus() == null ? new NodeStatus() : now.getStatus();
    status.setConditions(
        List.of(
            new NodeConditionBuilder()
                .withType("Ready")
                .withStatus(ready ? "True" : "False")
                .withReason(ready ? "KubeletReady" : "NodeStatusUnknown")
                .build()));
    now.setStatus(status);
    client.nodes().resource(now).updateStatus();
  }
}
