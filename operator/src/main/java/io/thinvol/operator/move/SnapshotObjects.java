package io.thinvol.operator.move;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The snapshots of a move, as the snapshot API's objects (generic: the operator models only the
 * fields it writes and reads). S1 is an ordinary dynamic snapshot of the claim; S2 is imported
 * ({@link CutSnapshot}).
 */
final class SnapshotObjects {

  static final String API_VERSION = "snapshot.storage.k8s.io/v1";

  private SnapshotObjects() {}

  /** S1 of the claim, with the backend's VolumeSnapshotClass. */
  static GenericKubernetesResource preCopy(MoveNames names, String snapshotClass) {
    return snapshot(
        names,
        names.preSnapshot(),
        Map.of("persistentVolumeClaimName", names.claim()),
        snapshotClass);
  }

  private static GenericKubernetesResource snapshot(
      MoveNames names, String name, Map<String, Object> source, String snapshotClass) {
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("volumeSnapshotClassName", snapshotClass);
    spec.put("source", source);
    return new GenericKubernetesResourceBuilder()
        .withApiVersion(API_VERSION)
        .withKind("VolumeSnapshot")
        .withNewMetadata()
        .withName(name)
        .withNamespace(names.namespace())
        .withLabels(names.labels())
        .endMetadata()
        .withAdditionalProperties(Map.of("spec", spec))
        .build();
  }

  /** Whether the snapshot controller reports the snapshot ready to use. */
  static boolean ready(GenericKubernetesResource snapshot) {
    return Boolean.TRUE.equals(status(snapshot).get("readyToUse"));
  }

  /** The snapshotter's error, if it reported one. */
  static Optional<String> error(GenericKubernetesResource snapshot) {
    Object error = status(snapshot).get("error");
    if (error instanceof Map<?, ?> map && map.get("message") != null) {
      return Optional.of(String.valueOf(map.get("message")));
    }
    return Optional.empty();
  }

  /** The handle a pre-provisioned content imports (its {@code spec.source.snapshotHandle}). */
  @SuppressWarnings("unchecked")
  static Optional<String> importedHandle(GenericKubernetesResource content) {
    Object spec = content.getAdditionalProperties().get("spec");
    Object source = spec instanceof Map<?, ?> map ? map.get("source") : null;
    return Optional.ofNullable(
            source instanceof Map<?, ?> map
                ? ((Map<String, Object>) map).get("snapshotHandle")
                : null)
        .map(String::valueOf);
  }

  /**
   * Whether the snapshot controller has bound {@code content} to a VolumeSnapshot (its {@code
   * volumeSnapshotRef} carries the snapshot's uid, which only the binding writes): then the
   * controller deletes it once that snapshot is gone, also when the snapshot is gone already by the
   * time a move looks again, and a delete of the operator's besides races the csi-snapshotter.
   */
  static boolean bound(GenericKubernetesResource content) {
    Object spec = content.getAdditionalProperties().get("spec");
    Object ref = spec instanceof Map<?, ?> map ? map.get("volumeSnapshotRef") : null;
    Object uid = ref instanceof Map<?, ?> map ? map.get("uid") : null;
    return uid != null && !String.valueOf(uid).isEmpty();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> status(GenericKubernetesResource object) {
    Object status = object == null ? null : object.getAdditionalProperties().get("status");
    return status instanceof Map<?, ?> map ? (Map<String, Object>) map : Map.of();
  }
}
