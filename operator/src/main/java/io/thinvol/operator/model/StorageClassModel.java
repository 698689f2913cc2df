package io.thinvol.operator.model;

import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.api.model.storage.StorageClassBuilder;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.api.v1alpha1.StorageClassSpec;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The StorageClasses of a backend. Volumes are node-local, so binding waits for the first pod
 * (WaitForFirstConsumer): the scheduler picks the node, then the volume is created there.
 */
public final class StorageClassModel {

  static final String DEFAULT_CLASS_ANNOTATION = "storageclass.kubernetes.io/is-default-class";
  static final String FSTYPE = "csi.storage.k8s.io/fstype";
  static final String IO_MODE = "ioMode";

  /** Shown by the OpenShift console and {@code kubectl describe storageclass}. */
  static final String DESCRIPTION_ANNOTATION = "description";

  private StorageClassModel() {}

  /** The automatic reclaim is on by default, unlike CSI-Addons': the class says so. */
  static String description(StorageBackend backend) {
    String schedule =
        Optional.ofNullable(Effective.spec(backend).getReclaimSpace())
            .map(io.thinvol.api.v1alpha1.ReclaimSpaceSpec::getSchedule)
            .orElse("@weekly");
    return "thinvol node-local thin volumes of StorageBackend "
        + backend.getMetadata().getName()
        + ". Every volume's unused space is reclaimed automatically ("
        + schedule
        + "); opt out with the annotation reclaimspace.thinvol.io/enable=false on a PVC, its"
        + " Namespace or this StorageClass.";
  }

  public static List<StorageClass> desired(StorageBackend backend) {
    Effective effective = Effective.of(backend);
    return effective.storageClasses().stream()
        .map(spec -> desired(backend, effective, spec))
        .toList();
  }

  private static StorageClass desired(
      StorageBackend backend, Effective effective, StorageClassSpec spec) {
    Map<String, String> parameters = new TreeMap<>();
    parameters.put(FSTYPE, effective.filesystem());
    Optional.ofNullable(spec.getParameters()).ifPresent(parameters::putAll);
    Optional.ofNullable(spec.getIoMode()).ifPresent(mode -> parameters.put(IO_MODE, mode.value()));
    Map<String, String> annotations = new TreeMap<>();
    if (Boolean.TRUE.equals(spec.getIsDefault())) {
      annotations.put(DEFAULT_CLASS_ANNOTATION, "true");
    }
    annotations.put(DESCRIPTION_ANNOTATION, description(backend));
    return new StorageClassBuilder()
        .withNewMetadata()
        .withName(spec.getName())
        .withLabels(Names.labels(backend))
        .withAnnotations(annotations)
        .endMetadata()
        .withProvisioner(Names.driver(backend))
        .withParameters(parameters)
        .withReclaimPolicy(
            Optional.ofNullable(spec.getReclaimPolicy())
                .orElse(StorageClassSpec.ReclaimPolicy.Delete)
                .name())
        .withVolumeBindingMode("WaitForFirstConsumer")
        .withAllowVolumeExpansion(Optional.ofNullable(spec.getAllowVolumeExpansion()).orElse(true))
        .withMountOptions(Optional.ofNullable(spec.getMountOptions()).orElse(List.of()))
        .build();
  }

  /**
   * Whether {@code actual} differs from {@code desired} in a field the API server refuses to
   * update, so that the class has to be created again to change it.
   */
  public static boolean needsRecreate(StorageClass actual, StorageClass desired) {
    return !Objects.equals(actual.getProvisioner(), desired.getProvisioner())
        || !Objects.equals(
            nullIfEmpty(actual.getParameters()), nullIfEmpty(desired.getParameters()))
        || !Objects.equals(actual.getReclaimPolicy(), desired.getReclaimPolicy())
        || !Objects.equals(actual.getVolumeBindingMode(), desired.getVolumeBindingMode());
  }

  private static Map<String, String> nullIfEmpty(Map<String, String> map) {
    return map == null || map.isEmpty() ? null : map;
  }
}
