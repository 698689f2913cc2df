package io.thinvol.operator;

import csi.v1.CreateSnapshotRequest;
import csi.v1.ListSnapshotsRequest;
import csi.v1.Snapshot;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.thinvol.driver.client.CsiClient;
import io.thinvol.operator.model.SnapshotContentNode;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Plays {@code csi-snapshotter --node-deployment --extra-create-metadata=true} on one node, as the
 * operator starts it: as the real sidecar (NODE_NAME set), it lists and watches only the
 * VolumeSnapshotContents labelled {@code snapshot.storage.kubernetes.io/managed-by=<its node>}; for
 * each dynamic one of its driver not yet made it calls the driver's CreateSnapshot, named {@code
 * snapshot-<VolumeSnapshot uid>}, with the parameters that flag adds (the VolumeSnapshot's name and
 * namespace, the content's name), and writes what the driver answered into the content's status;
 * for each pre-provisioned one it lists the snapshot its handle names (ListSnapshots), as the
 * sidecar checks one, and writes that.
 */
final class NodeSnapshotter implements AutoCloseable {

  static final String API_VERSION = "snapshot.storage.k8s.io/v1";

  private final KubernetesClient client;
  private final CsiClient csi;
  private final String driver;
  private final SharedIndexInformer<GenericKubernetesResource> informer;

  /** The contents it was shown, by name, and what went wrong making one. */
  final List<String> seen = new CopyOnWriteArrayList<>();

  final List<String> failures = new CopyOnWriteArrayList<>();

  NodeSnapshotter(KubernetesClient client, String node, CsiClient csi, String driver) {
    this.client = client;
    this.csi = csi;
    this.driver = driver;
    this.informer =
        client
            .genericKubernetesResources(API_VERSION, "VolumeSnapshotContent")
            .withLabel(SnapshotContentNode.MANAGED_BY, node)
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(GenericKubernetesResource content) {
                    handle(content);
                  }

                  @Override
                  public void onUpdate(
                      GenericKubernetesResource old, GenericKubernetesResource content) {
                    handle(content);
                  }

                  @Override
                  public void onDelete(GenericKubernetesResource content, boolean unknown) {}
                });
  }

  @SuppressWarnings("unchecked")
  private void handle(GenericKubernetesResource content) {
    String name = content.getMetadata().getName();
    seen.add(name);
    Map<String, Object> spec = (Map<String, Object>) content.getAdditionalProperties().get("spec");
    Map<String, Object> source = (Map<String, Object>) spec.get("source");
    Map<String, Object> status =
        (Map<String, Object>) content.getAdditionalProperties().get("status");
    Map<String, Object> ref = (Map<String, Object>) spec.get("volumeSnapshotRef");
    if (!driver.equals(spec.get("driver"))
        || (status != null && status.get("snapshotHandle") != null)) {
      return;
    }
    // as the sidecar, which names the snapshot after the VolumeSnapshot's uid: a dynamic content
    // waits until the snapshot controller has bound it
    if (source.get("snapshotHandle") == null && ref.get("uid") == null) {
      return;
    }
    try {
      Snapshot made =
          source.get("snapshotHandle") != null
              ? listed((String) source.get("snapshotHandle"))
              : csi.controller()
                  .createSnapshot(
                      CreateSnapshotRequest.newBuilder()
                          .setName("snapshot-" + ref.get("uid"))
                          .setSourceVolumeId((String) source.get("volumeHandle"))
                          .putParameters(
                              "csi.storage.k8s.io/volumesnapshot/name", (String) ref.get("name"))
                          .putParameters(
                              "csi.storage.k8s.io/volumesnapshot/namespace",
                              (String) ref.get("namespace"))
                          .putParameters("csi.storage.k8s.io/volumesnapshotcontent/name", name)
                          .build())
                  .getSnapshot();
      client
          .genericKubernetesResources(API_VERSION, "VolumeSnapshotContent")
          .withName(name)
          .editStatus(
              latest -> {
                latest.setAdditionalProperty(
                    "status",
                    Map.of(
                        "snapshotHandle", made.getSnapshotId(),
                        "readyToUse", made.getReadyToUse(),
                        "restoreSize", made.getSizeBytes(),
                        "creationTime",
                            made.getCreationTime().getSeconds() * 1_000_000_000L
                                + made.getCreationTime().getNanos()));
                return latest;
              });
    } catch (RuntimeException e) {
      failures.add(
          name
              + ": "
              + e
              + " in "
              + io.fabric8.kubernetes.client.utils.Serialization.asJson(content));
    }
  }

  /** A pre-provisioned content's snapshot, as the sidecar checks it: ListSnapshots by its id. */
  private Snapshot listed(String handle) {
    return csi
        .controller()
        .listSnapshots(ListSnapshotsRequest.newBuilder().setSnapshotId(handle).build())
        .getEntriesList()
        .stream()
        .map(e -> e.getSnapshot())
        .findFirst()
        .orElseThrow(() -> new IllegalStateException("snapshot " + handle + " not found"));
  }

  /** The cluster's objects of a snapshot.storage.k8s.io/v1 kind (VolumeSnapshot, ...). */
  static io.fabric8.kubernetes.client.dsl.MixedOperation<
          GenericKubernetesResource,
          io.fabric8.kubernetes.api.model.GenericKubernetesResourceList,
          io.fabric8.kubernetes.client.dsl.Resource<GenericKubernetesResource>>
      objects(KubernetesClient client, String kind) {
    return client.genericKubernetesResources(API_VERSION, kind);
  }

  @Override
  public void close() {
    informer.close();
  }
}
