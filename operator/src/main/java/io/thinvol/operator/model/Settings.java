package io.thinvol.operator.model;

import io.thinvol.addons.call.ProjectedToken;

/**
 * What the operator knows about where it runs.
 *
 * @param namespace the operator's namespace, where the namespaced objects go
 * @param operatorImage the operator's own image (the driver has its own: {@link Images#driver})
 * @param openShift the cluster is OpenShift (SCCs, Pod Security label sync)
 * @param snapshotApi the cluster serves snapshot.storage.k8s.io (VolumeSnapshot CRDs)
 * @param addonsTokenAudience the audience of the operator's projected token, which the drivers
 *     require of their callers
 * @param snapshotMetadataApi the cluster serves cbt.storage.k8s.io SnapshotMetadataServices (the
 *     external-snapshot-metadata sidecar is deployed only then)
 * @param images the images a backend runs unless its spec overrides them
 * @param groupSnapshotApi the cluster serves groupsnapshot.storage.k8s.io in the version the
 *     snapshotter reads (its group snapshot feature gate is on only then)
 * @param monitoringApi the cluster serves the Prometheus Operator's monitoring.coreos.com/v1
 *     PodMonitors and PrometheusRules (the scrape objects and alert rules are made only then)
 */
public record Settings(
    String namespace,
    String operatorImage,
    boolean openShift,
    boolean snapshotApi,
    String addonsTokenAudience,
    boolean snapshotMetadataApi,
    Images images,
    boolean groupSnapshotApi,
    boolean monitoringApi) {

  /** On a cluster without the Prometheus Operator's API. */
  public Settings(
      String namespace,
      String operatorImage,
      boolean openShift,
      boolean snapshotApi,
      String addonsTokenAudience,
      boolean snapshotMetadataApi,
      Images images,
      boolean groupSnapshotApi) {
    this(
        namespace,
        operatorImage,
        openShift,
        snapshotApi,
        addonsTokenAudience,
        snapshotMetadataApi,
        images,
        groupSnapshotApi,
        false);
  }

  /** The same, on a cluster that does or does not serve the Prometheus Operator's API. */
  public Settings withMonitoringApi(boolean served) {
    return new Settings(
        namespace,
        operatorImage,
        openShift,
        snapshotApi,
        addonsTokenAudience,
        snapshotMetadataApi,
        images,
        groupSnapshotApi,
        served);
  }

  /** On a cluster without group snapshots. */
  public Settings(
      String namespace,
      String operatorImage,
      boolean openShift,
      boolean snapshotApi,
      String addonsTokenAudience,
      boolean snapshotMetadataApi,
      Images images) {
    this(
        namespace,
        operatorImage,
        openShift,
        snapshotApi,
        addonsTokenAudience,
        snapshotMetadataApi,
        images,
        false);
  }

  /** With the compiled-in sidecars and the operator's image as the driver's (tests' shorthand). */
  public Settings(
      String namespace,
      String operatorImage,
      boolean openShift,
      boolean snapshotApi,
      String addonsTokenAudience,
      boolean snapshotMetadataApi) {
    this(
        namespace,
        operatorImage,
        openShift,
        snapshotApi,
        addonsTokenAudience,
        snapshotMetadataApi,
        Images.compiled(operatorImage));
  }

  /** On a cluster without SnapshotMetadataServices. */
  public Settings(
      String namespace,
      String operatorImage,
      boolean openShift,
      boolean snapshotApi,
      String addonsTokenAudience,
      Images images) {
    this(namespace, operatorImage, openShift, snapshotApi, addonsTokenAudience, false, images);
  }

  /** With the default addons token audience, on a cluster without SnapshotMetadataServices. */
  public Settings(String namespace, String operatorImage, boolean openShift, boolean snapshotApi) {
    this(namespace, operatorImage, openShift, snapshotApi, ProjectedToken.DEFAULT_AUDIENCE, false);
  }
}
