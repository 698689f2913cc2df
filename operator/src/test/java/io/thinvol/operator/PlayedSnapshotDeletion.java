package io.thinvol.operator;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * How snapshots are deleted, played as external-snapshotter v8.6.0 does it (read in its source:
 * {@code pkg/common-controller/snapshot_controller.go}, {@code pkg/sidecar-controller/
 * snapshot_controller.go}, {@code pkg/utils/util.go}):
 *
 * <ul>
 *   <li>The snapshot controller gives every VolumeSnapshot the finalizer {@value #AS_SOURCE}, and
 *       one bound to a content with policy Delete also {@value #SNAPSHOT_BOUND} ({@code
 *       checkandAddSnapshotFinalizers}).
 *   <li>A deleted VolumeSnapshot ({@code processSnapshotWithDeletionTimestamp}, {@code
 *       checkandRemoveSnapshotFinalizersAndCheckandDeleteContent}): while a Pending claim is
 *       restored from it, Warning {@code SnapshotDeletePending} and nothing else. Otherwise its
 *       content, if the content is bound to it ({@code volumeSnapshotRef.uid}), gets the annotation
 *       {@value #BEING_DELETED}, and with policy Delete is deleted by the controller; if that
 *       delete fails (the content is gone already), Warning {@code
 *       SnapshotContentObjectDeleteError} "Failed to delete snapshot content API object". The
 *       VolumeSnapshot keeps {@value #SNAPSHOT_BOUND} until its content is gone.
 *   <li>A content whose VolumeSnapshot is gone is never deleted by the controller ({@code
 *       syncContent}: "to avoid data loss").
 *   <li>The node's csi-snapshotter ({@code shouldDelete}) deletes the snapshot of a deleted content
 *       (DeleteSnapshot, policy Delete) and removes {@value #CONTENT_BOUND} only if the content is
 *       pre-provisioned and bound to no VolumeSnapshot, or carries {@value #BEING_DELETED}.
 * </ul>
 *
 * The two are separate processes, each reacting to the content's updates: the csi-snapshotter may
 * act on the annotation before the controller sends its delete. The played one always does, so a
 * content someone else deleted already is gone by then, as it can be on a real cluster.
 */
final class PlayedSnapshotDeletion {

  static final String AS_SOURCE =
      "snapshot.storage.kubernetes.io/volumesnapshot-as-source-protection";
  static final String SNAPSHOT_BOUND =
      "snapshot.storage.kubernetes.io/volumesnapshot-bound-protection";
  static final String CONTENT_BOUND =
      "snapshot.storage.kubernetes.io/volumesnapshotcontent-bound-protection";
  static final String BEING_DELETED = "snapshot.storage.kubernetes.io/volumesnapshot-being-deleted";

  private static final String API_VERSION = "snapshot.storage.k8s.io/v1";

  private final KubernetesClient client;
  private final Consumer<JsonNode> deleteSnapshotOnNode;

  /**
   * @param deleteSnapshotOnNode the node's DeleteSnapshot, given the content whose snapshot goes
   */
  PlayedSnapshotDeletion(KubernetesClient client, Consumer<JsonNode> deleteSnapshotOnNode) {
    this.client = client;
    this.deleteSnapshotOnNode = deleteSnapshotOnNode;
  }

  /** One pass over every VolumeSnapshot and content. */
  void pass() {
    for (GenericKubernetesResource snapshot : snapshots().inAnyNamespace().list().getItems()) {
      if (snapshot.getMetadata().getDeletionTimestamp() == null) {
        protect(snapshot);
      } else {
        deleted(snapshot);
      }
    }
    for (GenericKubernetesResource content : contents().list().getItems()) {
      snapshotter(content.getMetadata().getName());
    }
  }

  private void protect(GenericKubernetesResource snapshot) {
    List<String> finalizers = snapshot.getMetadata().getFinalizers();
    GenericKubernetesResource content = boundContent(snapshot);
    boolean bound =
        content != null && "Delete".equals(tree(content).at("/spec/deletionPolicy").asText());
    if (!finalizers.contains(AS_SOURCE) || (bound && !finalizers.contains(SNAPSHOT_BOUND))) {
      edit(
          snapshot,
          latest -> {
            addOnce(latest.getMetadata().getFinalizers(), AS_SOURCE);
            if (bound) {
              addOnce(latest.getMetadata().getFinalizers(), SNAPSHOT_BOUND);
            }
          });
    }
  }

  private void deleted(GenericKubernetesResource snapshot) {
    List<String> finalizers = snapshot.getMetadata().getFinalizers();
    if (!finalizers.contains(AS_SOURCE) && !finalizers.contains(SNAPSHOT_BOUND)) {
      return;
    }
    GenericKubernetesResource content = boundContent(snapshot);
    if (content != null && restoring(snapshot)) {
      warn(snapshot, "SnapshotDeletePending", "Snapshot is being used to restore a PVC");
      return;
    }
    boolean deleteContent =
        content != null && "Delete".equals(tree(content).at("/spec/deletionPolicy").asText());
    if (content != null) {
      String name = content.getMetadata().getName();
      if (!tree(content).at("/metadata/annotations").has(BEING_DELETED)) {
        contents()
            .withName(name)
            .edit(
                latest -> {
                  if (latest.getMetadata().getAnnotations() == null) {
                    latest.getMetadata().setAnnotations(new java.util.HashMap<>());
                  }
                  latest.getMetadata().getAnnotations().put(BEING_DELETED, "yes");
                  return latest;
                });
      }
      snapshotter(name); // may act on the annotation first
      if (deleteContent && contents().withName(name).delete().isEmpty()) {
        // the controller's delete of a content that is gone fails NotFound (fabric8 answers it
        // with nothing deleted)
        warn(
            snapshot,
            "SnapshotContentObjectDeleteError",
            "Failed to delete snapshot content API object");
        return;
      }
    }
    boolean keepBound = content != null && deleteContent;
    edit(
        snapshot,
        latest -> {
          latest.getMetadata().getFinalizers().remove(AS_SOURCE);
          if (!keepBound) {
            latest.getMetadata().getFinalizers().remove(SNAPSHOT_BOUND);
          }
        });
  }

  /** The csi-snapshotter of the content's node, on a deleted content. */
  private void snapshotter(String name) {
    GenericKubernetesResource content = contents().withName(name).get();
    if (content == null || content.getMetadata().getDeletionTimestamp() == null) {
      return;
    }
    JsonNode tree = tree(content);
    boolean unboundPreProvisioned =
        tree.at("/spec/source").has("snapshotHandle")
            && tree.at("/spec/volumeSnapshotRef/uid").asText("").isEmpty();
    if (!unboundPreProvisioned && !tree.at("/metadata/annotations").has(BEING_DELETED)) {
      return;
    }
    if ("Delete".equals(tree.at("/spec/deletionPolicy").asText())
        && !tree.at("/status/snapshotHandle").asText("").isEmpty()) {
      deleteSnapshotOnNode.accept(tree);
    }
    contents()
        .withName(name)
        .edit(
            latest -> {
              latest.getMetadata().getFinalizers().remove(CONTENT_BOUND);
              return latest;
            });
  }

  /** The content bound to the snapshot both ways, or null. */
  private GenericKubernetesResource boundContent(GenericKubernetesResource snapshot) {
    JsonNode tree = tree(snapshot);
    String name = tree.at("/status/boundVolumeSnapshotContentName").asText("");
    if (name.isEmpty() && tree.at("/spec/source").has("persistentVolumeClaimName")) {
      name = "snapcontent-" + snapshot.getMetadata().getUid();
    }
    if (name.isEmpty()) {
      return null;
    }
    GenericKubernetesResource content = contents().withName(name).get();
    return content != null
            && snapshot
                .getMetadata()
                .getUid()
                .equals(tree(content).at("/spec/volumeSnapshotRef/uid").asText())
        ? content
        : null;
  }

  /** A Pending claim restored from the snapshot ({@code isVolumeBeingCreatedFromSnapshot}). */
  private boolean restoring(GenericKubernetesResource snapshot) {
    for (PersistentVolumeClaim claim :
        client
            .persistentVolumeClaims()
            .inNamespace(snapshot.getMetadata().getNamespace())
            .list()
            .getItems()) {
      var source = claim.getSpec().getDataSource();
      if (source != null
          && source.getName().equals(snapshot.getMetadata().getName())
          && "VolumeSnapshot".equals(source.getKind())
          && claim.getStatus() != null
          && "Pending".equals(claim.getStatus().getPhase())) {
        return true;
      }
    }
    return false;
  }

  /** An Event on the snapshot, as the snapshot controller's recorder writes it. */
  private void warn(GenericKubernetesResource snapshot, String reason, String message) {
    String now = Instant.now().toString();
    client
        .v1()
        .events()
        .inNamespace(snapshot.getMetadata().getNamespace())
        .resource(
            new EventBuilder()
                .withNewMetadata()
                .withName(snapshot.getMetadata().getName() + "." + UUID.randomUUID())
                .withNamespace(snapshot.getMetadata().getNamespace())
                .endMetadata()
                .withInvolvedObject(
                    new ObjectReferenceBuilder()
                        .withApiVersion(API_VERSION)
                        .withKind("VolumeSnapshot")
                        .withNamespace(snapshot.getMetadata().getNamespace())
                        .withName(snapshot.getMetadata().getName())
                        .withUid(snapshot.getMetadata().getUid())
                        .build())
                .withType("Warning")
                .withReason(reason)
                .withMessage(message)
                .withFirstTimestamp(now)
                .withLastTimestamp(now)
                .withCount(1)
                .withNewSource()
                .withComponent("snapshot-controller")
                .endSource()
                .build())
        .create();
  }

  private void edit(
      GenericKubernetesResource snapshot, Consumer<GenericKubernetesResource> change) {
    snapshots()
        .inNamespace(snapshot.getMetadata().getNamespace())
        .withName(snapshot.getMetadata().getName())
        .edit(
            latest -> {
              change.accept(latest);
              return latest;
            });
  }

  private static void addOnce(List<String> finalizers, String finalizer) {
    if (!finalizers.contains(finalizer)) {
      finalizers.add(finalizer);
    }
  }

  private io.fabric8.kubernetes.client.dsl.MixedOperation<
          GenericKubernetesResource,
          io.fabric8.kubernetes.api.model.GenericKubernetesResourceList,
          Resource<GenericKubernetesResource>>
      snapshots() {
    return client.genericKubernetesResources(API_VERSION, "VolumeSnapshot");
  }

  private NonNamespaceOperation<
          GenericKubernetesResource,
          io.fabric8.kubernetes.api.model.GenericKubernetesResourceList,
          Resource<GenericKubernetesResource>>
      contents() {
    return client.genericKubernetesResources(API_VERSION, "VolumeSnapshotContent");
  }

  private static JsonNode tree(GenericKubernetesResource object) {
    return Serialization.jsonMapper().valueToTree(object);
  }
}
