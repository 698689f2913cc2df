package io.thinvol.operator.model;

import io.thinvol.api.v1alpha1.ImagesSpec;
import io.thinvol.api.v1alpha1.StorageBackend;
import java.util.List;
import java.util.Optional;

/**
 * The images a backend runs: overrides from the spec, else the defaults this operator version was
 * tested with. The defaults are listed once, here; the bundle's relatedImages is checked against
 * {@link #defaults}.
 */
public record Images(
    String driver,
    String nodeDriverRegistrar,
    String provisioner,
    String resizer,
    String snapshotter,
    String livenessProbe) {

  static final String REGISTRY = "registry.k8s.io/sig-storage/";
  public static final String NODE_DRIVER_REGISTRAR = REGISTRY + "csi-node-driver-registrar:v2.17.0";
  public static final String PROVISIONER = REGISTRY + "csi-provisioner:v6.3.0";
  public static final String RESIZER = REGISTRY + "csi-resizer:v2.2.1";
  public static final String SNAPSHOTTER = REGISTRY + "csi-snapshotter:v8.6.0";
  public static final String LIVENESS_PROBE = REGISTRY + "livenessprobe:v2.19.0";

  /**
   * Every image the operator deploys by default: the driver (the operator's own image unless the
   * driver image is set apart, see {@link Settings#driverImage}) and the sidecars.
   */
  public static List<String> defaults(String driverImage) {
    return List.of(
        driverImage, NODE_DRIVER_REGISTRAR, PROVISIONER, RESIZER, SNAPSHOTTER, LIVENESS_PROBE);
  }

  public static Images of(StorageBackend backend, Settings settings) {
    ImagesSpec spec =
        Optional.ofNullable(Effective.spec(backend).getImages()).orElseGet(ImagesSpec::new);
    return new Images(
        or(spec.getDriver(), settings.driverImage()),
        or(spec.getNodeDriverRegistrar(), NODE_DRIVER_REGISTRAR),
        or(spec.getProvisioner(), PROVISIONER),
        or(spec.getResizer(), RESIZER),
        or(spec.getSnapshotter(), SNAPSHOTTER),
        or(spec.getLivenessProbe(), LIVENESS_PROBE));
  }

  private static String or(String override, String fallback) {
    return override == null || override.isBlank() ? fallback : override;
  }
}
