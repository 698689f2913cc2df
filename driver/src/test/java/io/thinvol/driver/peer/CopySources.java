package io.thinvol.driver.peer;

import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.net.HttpURLConnection;
import java.util.Map;

/**
 * The objects behind a cross-node clone or restore, as the API server serves them to the driver
 * that decides whether to send a copy: the new claim and its data source (a claim bound to a
 * PersistentVolume, or a VolumeSnapshot bound to a content), with the handles the driver knows.
 */
final class CopySources {

  static final String NAMESPACE = "apps";

  private final KubernetesMockServer server;

  CopySources(KubernetesMockServer server) {
    this.server = server;
  }

  /** Claim {@code name} whose data source is claim {@code source}, bound to volume {@code id}. */
  void cloneOf(String name, String source, String volumeId) {
    claim(name, Map.of("kind", "PersistentVolumeClaim", "name", source), "");
    claim(source, null, "pv-" + volumeId);
    serve(
        "/api/v1/persistentvolumes/pv-" + volumeId,
        Map.of(
            "metadata",
            Map.of("name", "pv-" + volumeId),
            "spec",
            Map.of("csi", Map.of("driver", PeerDrivers.DRIVER, "volumeHandle", volumeId))));
  }

  /**
   * Claim {@code name} restored from VolumeSnapshot {@code source}, bound to {@code snapshotId}.
   */
  void restoreOf(String name, String source, String snapshotId) {
    claim(
        name,
        Map.of("apiGroup", "snapshot.storage.k8s.io", "kind", "VolumeSnapshot", "name", source),
        "");
    serve(
        "/apis/snapshot.storage.k8s.io/v1/namespaces/" + NAMESPACE + "/volumesnapshots/" + source,
        Map.of(
            "metadata",
            Map.of("name", source, "namespace", NAMESPACE),
            "status",
            Map.of("boundVolumeSnapshotContentName", "content-" + source)));
    serve(
        "/apis/snapshot.storage.k8s.io/v1/volumesnapshotcontents/content-" + source,
        Map.of(
            "metadata",
            Map.of("name", "content-" + source),
            "spec",
            Map.of("driver", PeerDrivers.DRIVER),
            "status",
            Map.of("snapshotHandle", snapshotId)));
  }

  /**
   * VolumeReplication {@code name} (uid {@code uid}) of claim {@code claim}, bound to volume {@code
   * volumeId}, whose status names {@code standby} as its standby node ({@code null}: none yet).
   */
  void replication(String name, String uid, String claim, String volumeId, String standby) {
    claim(claim, null, "pv-" + volumeId);
    serve(
        "/api/v1/persistentvolumes/pv-" + volumeId,
        Map.of(
            "metadata",
            Map.of("name", "pv-" + volumeId),
            "spec",
            Map.of("csi", Map.of("driver", PeerDrivers.DRIVER, "volumeHandle", volumeId))));
    serve(
        "/apis/thinvol.io/v1alpha1/namespaces/" + NAMESPACE + "/volumereplications/" + name,
        Map.of(
            "metadata",
            Map.of("name", name, "namespace", NAMESPACE, "uid", uid),
            "spec",
            Map.of("dataSource", Map.of("kind", "PersistentVolumeClaim", "name", claim)),
            "status",
            standby == null ? Map.of() : Map.of("standbyNode", standby)));
  }

  /** The CreateVolume parameters the external-provisioner adds for claim {@code name}. */
  static Map<String, String> parametersOf(String name) {
    return Map.of(
        "csi.storage.k8s.io/pvc/namespace", NAMESPACE, "csi.storage.k8s.io/pvc/name", name);
  }

  private void claim(String name, Map<String, String> dataSource, String volumeName) {
    Map<String, Object> spec =
        dataSource == null
            ? Map.of("volumeName", volumeName)
            : Map.of("dataSource", dataSource, "dataSourceRef", dataSource);
    serve(
        "/api/v1/namespaces/" + NAMESPACE + "/persistentvolumeclaims/" + name,
        Map.of("metadata", Map.of("name", name, "namespace", NAMESPACE), "spec", spec));
  }

  private void serve(String path, Map<String, Object> body) {
    server.expect().get().withPath(path).andReturn(HttpURLConnection.HTTP_OK, body).always();
  }
}
