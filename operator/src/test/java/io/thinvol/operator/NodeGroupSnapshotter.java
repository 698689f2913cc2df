package io.thinvol.operator;

import csi.v1.CreateVolumeGroupSnapshotRequest;
import csi.v1.VolumeGroupSnapshot;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.thinvol.driver.client.CsiClient;
import io.thinvol.operator.model.GroupSnapshotModel;
import io.thinvol.operator.model.SnapshotContentNode;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Plays {@code csi-snapshotter --node-deployment --extra-create-metadata=true
 * --feature-gates=CSIVolumeGroupSnapshot=true} on one node, as external-snapshotter v8.6 builds it:
 * its informers of VolumeGroupSnapshotContents <em>and of VolumeGroupSnapshotClasses</em> select
 * {@code snapshot.storage.kubernetes.io/managed-by=<its node>}. For each dynamic group content of
 * its driver not yet made whose class it can see, it calls CreateVolumeGroupSnapshot with the
 * parameters that flag adds and writes the answer into the content's status; a content whose class
 * it cannot see fails as the sidecar's does ("not found"), and is tried again when a class shows
 * up.
 */
final class NodeGroupSnapshotter implements AutoCloseable {

  private final KubernetesClient client;
  private final CsiClient csi;
  private final String driver;
  private final SharedIndexInformer<GenericKubernetesResource> contents;
  private final SharedIndexInformer<GenericKubernetesResource> classes;

  /** What went wrong making a group, as the sidecar would log it. */
  final List<String> failures = new CopyOnWriteArrayList<>();

  NodeGroupSnapshotter(KubernetesClient client, String node, CsiClient csi, String driver) {
    this.client = client;
    this.csi = csi;
    this.driver = driver;
    this.classes =
        client
            .genericKubernetesResources(GroupSnapshotModel.API_VERSION, "VolumeGroupSnapshotClass")
            .withLabel(SnapshotContentNode.MANAGED_BY, node)
            .inform(handler(c -> retryAll()));
    this.contents =
        client
            .genericKubernetesResources(
                GroupSnapshotModel.API_VERSION, "VolumeGroupSnapshotContent")
            .withLabel(SnapshotContentNode.MANAGED_BY, node)
            .inform(handler(this::handle));
  }

  private static ResourceEventHandler<GenericKubernetesResource> handler(
      java.util.function.Consumer<GenericKubernetesResource> action) {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(GenericKubernetesResource object) {
        action.accept(object);
      }

      @Override
      public void onUpdate(GenericKubernetesResource old, GenericKubernetesResource object) {
        action.accept(object);
      }

      @Override
      public void onDelete(GenericKubernetesResource object, boolean unknown) {}
    };
  }

  private synchronized void retryAll() {
    if (contents != null) {
      contents.getStore().list().forEach(this::handle);
    }
  }

  @SuppressWarnings("unchecked")
  private synchronized void handle(GenericKubernetesResource content) {
    String name = content.getMetadata().getName();
    Map<String, Object> spec = (Map<String, Object>) content.getAdditionalProperties().get("spec");
    Map<String, Object> source = (Map<String, Object>) spec.get("source");
    Map<String, Object> status =
        (Map<String, Object>) content.getAdditionalProperties().get("status");
    if (!driver.equals(spec.get("driver"))
        || source.get("volumeHandles") == null
        || (status != null && status.get("volumeGroupSnapshotHandle") != null)) {
      return;
    }
    String className = (String) spec.get("volumeGroupSnapshotClassName");
    if (classes.getStore().getByKey(className) == null) {
      failures.add(name + ": volumegroupsnapshotclass \"" + className + "\" not found");
      return;
    }
    Map<String, Object> ref = (Map<String, Object>) spec.get("volumeGroupSnapshotRef");
    try {
      VolumeGroupSnapshot made =
          csi.groupController()
              .createVolumeGroupSnapshot(
                  CreateVolumeGroupSnapshotRequest.newBuilder()
                      .setName("groupsnapshot-" + ref.get("uid"))
                      .addAllSourceVolumeIds((List<String>) source.get("volumeHandles"))
                      .putParameters(
                          "csi.storage.k8s.io/volumegroupsnapshot/name", (String) ref.get("name"))
                      .putParameters(
                          "csi.storage.k8s.io/volumegroupsnapshot/namespace",
                          (String) ref.get("namespace"))
                      .putParameters("csi.storage.k8s.io/volumegroupsnapshotcontent/name", name)
                      .build())
              .getGroupSnapshot();
      client
          .genericKubernetesResources(GroupSnapshotModel.API_VERSION, "VolumeGroupSnapshotContent")
          .withName(name)
          .editStatus(
              latest -> {
                latest.setAdditionalProperty(
                    "status",
                    Map.of(
                        "volumeGroupSnapshotHandle", made.getGroupSnapshotId(),
                        "readyToUse", made.getReadyToUse(),
                        "volumeSnapshotInfoList",
                            made.getSnapshotsList().stream()
                                .map(
                                    s ->
                                        Map.of(
                                            "volumeHandle", s.getSourceVolumeId(),
                                            "snapshotHandle", s.getSnapshotId()))
                                .toList()));
                return latest;
              });
    } catch (RuntimeException e) {
      failures.add(name + ": " + e);
    }
  }

  @Override
  public void close() {
    contents.close();
    classes.close();
  }
}
