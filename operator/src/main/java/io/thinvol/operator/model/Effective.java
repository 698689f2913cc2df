package io.thinvol.operator.model;

import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.Toleration;
import io.thinvol.api.v1alpha1.SparseFileSpec;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.api.v1alpha1.StorageBackendSpec;
import io.thinvol.api.v1alpha1.StorageClassSpec;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * A backend's settings with every default applied. The CRD's defaults fill fields of objects that
 * are present; this also covers absent parents (no {@code sparseFile}, or no spec at all), so the
 * desired objects never depend on which defaults the API server filled in.
 */
public record Effective(
    String dataDir,
    String filesystem,
    double overprovisionRatio,
    String kubeletDir,
    String logLevel,
    boolean volumeSnapshotClass,
    Map<String, String> nodeSelector,
    List<Toleration> tolerations,
    List<LocalObjectReference> imagePullSecrets,
    List<StorageClassSpec> storageClasses) {

  /** The spec, or an empty one: a StorageBackend without spec is valid (all defaults). */
  static StorageBackendSpec spec(StorageBackend backend) {
    return Optional.ofNullable(backend.getSpec()).orElseGet(StorageBackendSpec::new);
  }

  public static Effective of(StorageBackend backend) {
    StorageBackendSpec spec = spec(backend);
    SparseFileSpec sparse =
        Optional.ofNullable(spec.getSparseFile()).orElseGet(SparseFileSpec::new);
    String name = backend.getMetadata().getName();
    return new Effective(
        or(sparse.getDataDir(), "/var/lib/thinvol/" + name),
        or(sparse.getFilesystem(), SparseFileSpec.Filesystem.EXT4).name().toLowerCase(Locale.ROOT),
        or(sparse.getOverprovisionRatio(), 1.0),
        or(spec.getKubeletDir(), "/var/lib/kubelet"),
        or(spec.getLogLevel(), StorageBackendSpec.LogLevel.INFO).name(),
        or(spec.getVolumeSnapshotClass(), true),
        or(spec.getNodeSelector(), Map.of()),
        or(spec.getTolerations(), List.of()),
        or(spec.getImagePullSecrets(), List.of()),
        storageClasses(spec, name));
  }

  private static <T> T or(T value, T fallback) {
    return value == null ? fallback : value;
  }

  private static List<StorageClassSpec> storageClasses(StorageBackendSpec spec, String name) {
    if (spec.getStorageClasses() != null && !spec.getStorageClasses().isEmpty()) {
      return spec.getStorageClasses();
    }
    StorageClassSpec only = new StorageClassSpec();
    only.setName(name);
    return List.of(only);
  }
}
