package io.thinvol.operator;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.thinvol.api.v1alpha1.VolumeMove;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Nodes as the evacuation tests make, annotate and read them. */
final class EvacuatedNodes {

  private EvacuatedNodes() {}

  static void create(KubernetesClient client, String node) {
    client
        .resource(new NodeBuilder().withNewMetadata().withName(node).endMetadata().build())
        .create();
  }

  /** Sets or (null) removes the annotation, as {@code kubectl annotate node} does. */
  static void annotate(KubernetesClient client, String node, String value) {
    client
        .nodes()
        .withName(node)
        .edit(
            n -> {
              Map<String, String> annotations =
                  new HashMap<>(
                      n.getMetadata().getAnnotations() == null
                          ? Map.of()
                          : n.getMetadata().getAnnotations());
              if (value == null) {
                annotations.remove(VolumeMove.EVACUATE);
              } else {
                annotations.put(VolumeMove.EVACUATE, value);
              }
              n.getMetadata().setAnnotations(annotations);
              return n;
            });
  }

  /** The moves an evacuation of the node made. */
  static List<VolumeMove> moves(KubernetesClient client, String node) {
    return client
        .resources(VolumeMove.class)
        .inAnyNamespace()
        .withLabel(VolumeMove.EVACUATED_NODE, node)
        .list()
        .getItems();
  }
}
