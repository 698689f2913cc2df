package io.thinvol.operator;

import com.fasterxml.jackson.databind.JsonNode;
import csi.v1.DeleteSnapshotRequest;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.operator.model.SnapshotContentNode;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The external-snapshotter's snapshot controller, played: a VolumeSnapshot of a claim gets a
 * dynamic content {@code snapcontent-<uid>} for its volume, one of a pre-provisioned content binds
 * it (the content's {@code volumeSnapshotRef.uid}) if the content names a snapshot handle, and is
 * refused if it names a volume; a VolumeSnapshot is ready once its content is. Deleting is played
 * as the real controller and csi-snapshotter do it ({@link PlayedSnapshotDeletion}). The
 * CreateSnapshot itself is the node's csi-snapshotter's ({@link NodeSnapshotter}).
 */
final class PlayedSnapshotController {

  private final KubernetesClient client;
  private final Map<String, NodeDriver> nodes;
  private final PlayedSnapshotDeletion deletion;

  PlayedSnapshotController(KubernetesClient client, Map<String, NodeDriver> nodes) {
    this.client = client;
    this.nodes = nodes;
    this.deletion = new PlayedSnapshotDeletion(client, this::deleteOnNode);
  }

  /** One pass over every VolumeSnapshot and content, as after a resync. */
  void pass() {
    for (GenericKubernetesResource snapshot :
        NodeSnapshotter.objects(client, "VolumeSnapshot").inAnyNamespace().list().getItems()) {
      JsonNode tree = tree(snapshot);
      if (!tree.at("/metadata/deletionTimestamp").isMissingNode()) {
        continue;
      }
      String bound = tree.at("/status/boundVolumeSnapshotContentName").asText("");
      if (bound.isEmpty()) {
        bind(snapshot, tree);
      } else if (!tree.at("/status/readyToUse").asBoolean(false)) {
        GenericKubernetesResource content =
            NodeSnapshotter.objects(client, "VolumeSnapshotContent").withName(bound).get();
        if (content != null && tree(content).at("/status/readyToUse").asBoolean(false)) {
          ready(snapshot, bound, tree(content));
        }
      }
    }
    deletion.pass();
  }

  private void bind(GenericKubernetesResource snapshot, JsonNode tree) {
    String uid = snapshot.getMetadata().getUid();
    String contentName = tree.at("/spec/source/volumeSnapshotContentName").asText("");
    if (contentName.isEmpty()) {
      contentName = "snapcontent-" + uid;
      if (NodeSnapshotter.objects(client, "VolumeSnapshotContent").withName(contentName).get()
              == null
          && !createContent(snapshot, tree)) {
        return;
      }
    } else {
      GenericKubernetesResource content =
          NodeSnapshotter.objects(client, "VolumeSnapshotContent").withName(contentName).get();
      if (content == null) {
        return;
      }
      if (tree(content).at("/spec/source/snapshotHandle").asText("").isEmpty()) {
        writeStatus(snapshot, notPreProvisioned(contentName));
        return;
      }
      if (tree(content).at("/spec/volumeSnapshotRef/uid").asText("").isEmpty()) {
        NodeSnapshotter.objects(client, "VolumeSnapshotContent")
            .withName(contentName)
            .edit(
                latest -> {
                  spec(latest).put("volumeSnapshotRef", reference(snapshot));
                  latest.getMetadata().getFinalizers().add(PlayedSnapshotDeletion.CONTENT_BOUND);
                  return latest;
                });
      }
    }
    writeStatus(
        snapshot, Map.of("boundVolumeSnapshotContentName", contentName, "readyToUse", false));
  }

  /** The dynamic content of a snapshot of a bound claim; false while the claim is not bound. */
  private boolean createContent(GenericKubernetesResource snapshot, JsonNode tree) {
    String namespace = snapshot.getMetadata().getNamespace();
    PersistentVolumeClaim claim =
        client
            .persistentVolumeClaims()
            .inNamespace(namespace)
            .withName(tree.at("/spec/source/persistentVolumeClaimName").asText())
            .get();
    if (claim == null || claim.getSpec().getVolumeName() == null) {
      return false;
    }
    PersistentVolume volume =
        client.persistentVolumes().withName(claim.getSpec().getVolumeName()).get();
    GenericKubernetesResource content = new GenericKubernetesResource();
    content.setApiVersion(NodeSnapshotter.API_VERSION);
    content.setKind("VolumeSnapshotContent");
    content.setMetadata(
        new ObjectMetaBuilder()
            .withName("snapcontent-" + snapshot.getMetadata().getUid())
            .withFinalizers(PlayedSnapshotDeletion.CONTENT_BOUND)
            .build());
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("driver", volume.getSpec().getCsi().getDriver());
    spec.put("deletionPolicy", "Delete");
    spec.put("volumeSnapshotClassName", tree.at("/spec/volumeSnapshotClassName").asText());
    spec.put("source", Map.of("volumeHandle", volume.getSpec().getCsi().getVolumeHandle()));
    spec.put("volumeSnapshotRef", reference(snapshot));
    content.setAdditionalProperty("spec", spec);
    client.resource(content).create();
    return true;
  }

  private void ready(GenericKubernetesResource snapshot, String bound, JsonNode content) {
    long nanos = content.at("/status/creationTime").asLong();
    writeStatus(
        snapshot,
        Map.of(
            "boundVolumeSnapshotContentName",
            bound,
            "readyToUse",
            true,
            "restoreSize",
            content.at("/status/restoreSize").asText(),
            "creationTime",
            Instant.ofEpochSecond(nanos / 1_000_000_000L).toString()));
  }

  /** The node's csi-snapshotter deleting a deleted content's snapshot (DeleteSnapshot). */
  private void deleteOnNode(JsonNode content) {
    String node = content.at("/metadata/labels").path(SnapshotContentNode.MANAGED_BY).asText("");
    if (nodes.containsKey(node)) {
      nodes
          .get(node)
          .csi()
          .controller()
          .deleteSnapshot(
              DeleteSnapshotRequest.newBuilder()
                  .setSnapshotId(content.at("/status/snapshotHandle").asText())
                  .build());
    }
  }

  /**
   * The real controller's rule: a VolumeSnapshot bound ahead to a content takes it only if the
   * content names a snapshot handle; one naming a volume is dynamic to it, and refused.
   */
  static Map<String, Object> notPreProvisioned(String contentName) {
    return Map.of(
        "readyToUse",
        false,
        "error",
        Map.of("message", "VolumeSnapshotContent " + contentName + " is dynamically provisioned"));
  }

  private void writeStatus(GenericKubernetesResource snapshot, Map<String, Object> status) {
    NodeSnapshotter.objects(client, "VolumeSnapshot")
        .inNamespace(snapshot.getMetadata().getNamespace())
        .withName(snapshot.getMetadata().getName())
        .editStatus(
            latest -> {
              latest.setAdditionalProperty("status", status);
              return latest;
            });
  }

  private static Map<String, Object> reference(GenericKubernetesResource snapshot) {
    return Map.of(
        "apiVersion", NodeSnapshotter.API_VERSION,
        "kind", "VolumeSnapshot",
        "name", snapshot.getMetadata().getName(),
        "namespace", snapshot.getMetadata().getNamespace(),
        "uid", snapshot.getMetadata().getUid());
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> spec(GenericKubernetesResource object) {
    return (Map<String, Object>) object.getAdditionalProperties().get("spec");
  }

  private static JsonNode tree(GenericKubernetesResource object) {
    return Serialization.jsonMapper().valueToTree(object);
  }
}
