package io.thinvol.operator.model;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A snapshot a node's driver took outside the snapshot API, imported into it: a pre-provisioned
 * VolumeSnapshotContent naming the snapshot's handle, bound ahead to a VolumeSnapshot of the same
 * name. The snapshot-controller binds a pre-provisioned content only by {@code
 * source.snapshotHandle} (one naming a volume is "dynamically provisioned" to it, and refused), and
 * with {@code --node-deployment} only the csi-snapshotter of the node in the content's {@value
 * SnapshotContentNode#MANAGED_BY} label reads and deletes it; with the Delete policy, deleting the
 * VolumeSnapshot deletes the driver's snapshot too.
 *
 * @param node the node whose driver holds the snapshot
 * @param labels on both objects
 */
public record ImportedSnapshot(
    String name,
    String namespace,
    String driver,
    String snapshotHandle,
    String node,
    String snapshotClass,
    Map<String, String> labels) {

  public static final String API_VERSION = "snapshot.storage.k8s.io/v1";

  public GenericKubernetesResource content() {
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("driver", driver);
    spec.put("deletionPolicy", "Delete");
    spec.put("volumeSnapshotClassName", snapshotClass);
    spec.put("source", Map.of("snapshotHandle", snapshotHandle));
    spec.put(
        "volumeSnapshotRef",
        Map.of(
            "apiVersion",
            API_VERSION,
            "kind",
            "VolumeSnapshot",
            "namespace",
            namespace,
            "name",
            name));
    Map<String, String> contentLabels = new HashMap<>(labels);
    contentLabels.put(SnapshotContentNode.MANAGED_BY, node);
    return new GenericKubernetesResourceBuilder()
        .withApiVersion(API_VERSION)
        .withKind("VolumeSnapshotContent")
        .withNewMetadata()
        .withName(name)
        .withLabels(contentLabels)
        .endMetadata()
        .withAdditionalProperties(Map.of("spec", spec))
        .build();
  }

  public GenericKubernetesResource snapshot() {
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("volumeSnapshotClassName", snapshotClass);
    spec.put("source", Map.of("volumeSnapshotContentName", name));
    return new GenericKubernetesResourceBuilder()
        .withApiVersion(API_VERSION)
        .withKind("VolumeSnapshot")
        .withNewMetadata()
        .withName(name)
        .withNamespace(namespace)
        .withLabels(labels)
        .endMetadata()
        .withAdditionalProperties(Map.of("spec", spec))
        .build();
  }
}
