package io.thinvol.operator.model;

import io.thinvol.api.v1alpha1.ImagesSpec;
import io.thinvol.api.v1alpha1.StorageBackend;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The images a backend runs: overrides from the spec, else the operator's defaults. The defaults
 * come from {@code RELATED_IMAGE_<NAME>} environment variables, which the CSV's Deployment and the
 * chart set and which OLM rewrites to a mirror's digests in a disconnected cluster; the images
 * compiled in here (the ones this operator version was tested with) are only the fallback. The
 * variable names are listed once, in {@link #byVariable}.
 */
public record Images(
    String driver,
    String nodeDriverRegistrar,
    String provisioner,
    String resizer,
    String snapshotter,
    String livenessProbe,
    String snapshotMetadata) {

  public static final String VARIABLE_PREFIX = "RELATED_IMAGE_";

  static final String REGISTRY = "registry.k8s.io/sig-storage/";
  public static final String NODE_DRIVER_REGISTRAR = REGISTRY + "csi-node-driver-registrar:v2.17.0";
  public static final String PROVISIONER = REGISTRY + "csi-provisioner:v6.3.0";
  public static final String RESIZER = REGISTRY + "csi-resizer:v2.2.1";
  public static final String SNAPSHOTTER = REGISTRY + "csi-snapshotter:v8.6.0";
  public static final String LIVENESS_PROBE = REGISTRY + "livenessprobe:v2.19.0";
  // Only where the cluster serves SnapshotMetadataServices (see SnapshotMetadataModel)
  public static final String SNAPSHOT_METADATA = REGISTRY + "csi-snapshot-metadata:v1.1.0";

  /** The compiled-in defaults: the driver image of this build's driver version. */
  public static Images compiled() {
    return compiled(DriverRelease.IMAGE);
  }

  /** The compiled-in sidecars with another driver image. */
  public static Images compiled(String driverImage) {
    return new Images(
        driverImage,
        NODE_DRIVER_REGISTRAR,
        PROVISIONER,
        RESIZER,
        SNAPSHOTTER,
        LIVENESS_PROBE,
        SNAPSHOT_METADATA);
  }

  /**
   * The defaults as the environment sets them: {@code RELATED_IMAGE_<NAME>} where set and not
   * blank, else the compiled-in image.
   */
  public static Images fromEnvironment(Function<String, String> environment) {
    Map<String, String> images = compiled().byVariable();
    images.replaceAll(
        (variable, compiled) ->
            Optional.ofNullable(environment.apply(variable))
                .map(String::strip)
                .filter(image -> !image.isEmpty())
                .orElse(compiled));
    List<String> in = List.copyOf(images.values());
    return new Images(in.get(0), in.get(1), in.get(2), in.get(3), in.get(4), in.get(5), in.get(6));
  }

  /** Every image by the environment variable that sets it, in a stable order. */
  public Map<String, String> byVariable() {
    Map<String, String> images = new LinkedHashMap<>();
    images.put(VARIABLE_PREFIX + "DRIVER", driver);
    images.put(VARIABLE_PREFIX + "NODE_DRIVER_REGISTRAR", nodeDriverRegistrar);
    images.put(VARIABLE_PREFIX + "PROVISIONER", provisioner);
    images.put(VARIABLE_PREFIX + "RESIZER", resizer);
    images.put(VARIABLE_PREFIX + "SNAPSHOTTER", snapshotter);
    images.put(VARIABLE_PREFIX + "LIVENESS_PROBE", livenessProbe);
    images.put(VARIABLE_PREFIX + "SNAPSHOT_METADATA", snapshotMetadata);
    return images;
  }

  /** Every image the operator deploys by default. */
  public static List<String> defaults() {
    return defaults(DriverRelease.IMAGE);
  }

  /** Every image the operator deploys by default, with another driver image. */
  public static List<String> defaults(String driverImage) {
    return List.copyOf(compiled(driverImage).byVariable().values());
  }

  public static Images of(StorageBackend backend, Settings settings) {
    ImagesSpec spec =
        Optional.ofNullable(Effective.spec(backend).getImages()).orElseGet(ImagesSpec::new);
    Images defaults = settings.images();
    return new Images(
        or(spec.getDriver(), defaults.driver()),
        or(spec.getNodeDriverRegistrar(), defaults.nodeDriverRegistrar()),
        or(spec.getProvisioner(), defaults.provisioner()),
        or(spec.getResizer(), defaults.resizer()),
        or(spec.getSnapshotter(), defaults.snapshotter()),
        or(spec.getLivenessProbe(), defaults.livenessProbe()),
        defaults.snapshotMetadata());
  }

  private static String or(String override, String fallback) {
    return override == null || override.isBlank() ? fallback : override;
  }
}
