package io.thinvol.driver.peer.copy;

import io.grpc.Status;
import io.thinvol.driver.core.CsiException;
import io.thinvol.driver.kube.ApiServer;
import io.thinvol.driver.kube.JsonTree;
import io.thinvol.driver.store.ContentSource;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

/**
 * Whether a claim asks for a copy of a volume or snapshot: its {@code dataSourceRef} (or {@code
 * dataSource}) names a claim bound to a PersistentVolume of this driver with that volume handle, or
 * a VolumeSnapshot bound to a content of this driver with that snapshot handle. A node's driver
 * sends a copy only for a claim that asks for exactly that source: the drivers' ServiceAccount
 * alone reads nothing else.
 */
public final class ClaimSources {

  private static final String SNAPSHOT_GROUP = "snapshot.storage.k8s.io";

  private final Supplier<ApiServer> api;
  private final String driverName;

  public ClaimSources(Supplier<ApiServer> api, String driverName) {
    this.api = api;
    this.driverName = driverName;
  }

  /** PERMISSION_DENIED unless the claim {@code namespace/name} has {@code source} as its data. */
  public void requireSourceOf(String namespace, String name, ContentSource source) {
    String claimName = namespace + "/" + name;
    JsonTree spec =
        get(
                "/api/v1/namespaces/"
                    + encode(namespace)
                    + "/persistentvolumeclaims/"
                    + encode(name),
                "claim " + claimName)
            .path("spec");
    JsonTree ref =
        spec.path("dataSourceRef").has("kind")
            ? spec.path("dataSourceRef")
            : spec.path("dataSource");
    String kind = ref.path("kind").asText("");
    String group = ref.path("apiGroup").asText("");
    String refNamespace = ref.path("namespace").asText(namespace);
    String refName = ref.path("name").asText("");
    String named = null;
    if (source.kind() == ContentSource.Kind.VOLUME
        && "PersistentVolumeClaim".equals(kind)
        && group.isEmpty()) {
      named = volumeHandle(refNamespace, refName);
    } else if (source.kind() == ContentSource.Kind.SNAPSHOT
        && "VolumeSnapshot".equals(kind)
        && SNAPSHOT_GROUP.equals(group)) {
      named = snapshotHandle(refNamespace, refName);
    }
    if (!source.id().equals(named)) {
      throw new CsiException(
          Status.Code.PERMISSION_DENIED,
          String.format(
              "claim %s does not ask for a copy of %s %s (its data source is %s %s/%s%s)",
              claimName,
              source.kind() == ContentSource.Kind.VOLUME ? "volume" : "snapshot",
              source.id(),
              kind.isEmpty() ? "nothing" : kind,
              refNamespace,
              refName,
              named == null ? "" : ", which is " + named));
    }
  }

  /** The handle of the volume the claim is bound to, if it is one of this driver's; else null. */
  String volumeHandle(String namespace, String claim) {
    String volumeName =
        get(
                "/api/v1/namespaces/"
                    + encode(namespace)
                    + "/persistentvolumeclaims/"
                    + encode(claim),
                "source claim " + namespace + "/" + claim)
            .path("spec")
            .path("volumeName")
            .asText("");
    if (volumeName.isEmpty()) {
      return null;
    }
    JsonTree csi =
        get("/api/v1/persistentvolumes/" + encode(volumeName), "PersistentVolume " + volumeName)
            .path("spec")
            .path("csi");
    return driverName.equals(csi.path("driver").asText())
        ? csi.path("volumeHandle").asText()
        : null;
  }

  private String snapshotHandle(String namespace, String snapshot) {
    String contentName =
        get(
                "/apis/"
                    + SNAPSHOT_GROUP
                    + "/v1/namespaces/"
                    + encode(namespace)
                    + "/volumesnapshots/"
                    + encode(snapshot),
                "VolumeSnapshot " + namespace + "/" + snapshot)
            .path("status")
            .path("boundVolumeSnapshotContentName")
            .asText("");
    if (contentName.isEmpty()) {
      return null;
    }
    JsonTree content =
        get(
            "/apis/" + SNAPSHOT_GROUP + "/v1/volumesnapshotcontents/" + encode(contentName),
            "VolumeSnapshotContent " + contentName);
    if (!driverName.equals(content.path("spec").path("driver").asText())) {
      return null;
    }
    String handle = content.path("status").path("snapshotHandle").asText("");
    return handle.isEmpty()
        ? content.path("spec").path("source").path("snapshotHandle").asText("")
        : handle;
  }

  JsonTree get(String path, String what) {
    try {
      return api.get().get(path);
    } catch (IllegalStateException e) {
      if (String.valueOf(e.getMessage()).contains(" answered 404")) {
        throw new CsiException(
            Status.Code.PERMISSION_DENIED, what + " does not exist, so it asks for no copy");
      }
      throw new CsiException(
          Status.Code.UNAVAILABLE,
          "cannot read " + what + " to authorise a copy: " + e.getMessage());
    }
  }

  static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }
}
