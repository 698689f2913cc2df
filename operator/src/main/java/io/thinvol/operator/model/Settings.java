package io.thinvol.operator.model;

import io.thinvol.addons.call.ProjectedToken;
import java.util.function.Consumer;

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

  /**
   * With the default addons token audience, the compiled-in sidecars and the operator's image as
   * the driver's, on a cluster that serves none of the optional APIs but perhaps snapshots; the
   * {@code with} methods change the rest.
   */
  public Settings(String namespace, String operatorImage, boolean openShift, boolean snapshotApi) {
    this(
        namespace,
        operatorImage,
        openShift,
        snapshotApi,
        ProjectedToken.DEFAULT_AUDIENCE,
        false,
        Images.compiled(operatorImage),
        false,
        false);
  }

  public Settings withAddonsTokenAudience(String audience) {
    return changed(draft -> draft.addonsTokenAudience = audience);
  }

  public Settings withSnapshotMetadataApi(boolean served) {
    return changed(draft -> draft.snapshotMetadataApi = served);
  }

  public Settings withImages(Images images) {
    return changed(draft -> draft.images = images);
  }

  public Settings withGroupSnapshotApi(boolean served) {
    return changed(draft -> draft.groupSnapshotApi = served);
  }

  public Settings withMonitoringApi(boolean served) {
    return changed(draft -> draft.monitoringApi = served);
  }

  private Settings changed(Consumer<Draft> change) {
    Draft draft = new Draft(this);
    change.accept(draft);
    return draft.settings();
  }

  /** A changeable copy, so that each {@code with} method names only the setting it changes. */
  private static final class Draft {
    private final String namespace;
    private final String operatorImage;
    private final boolean openShift;
    private final boolean snapshotApi;
    private String addonsTokenAudience;
    private boolean snapshotMetadataApi;
    private Images images;
    private boolean groupSnapshotApi;
    private boolean monitoringApi;

    private Draft(Settings from) {
      namespace = from.namespace;
      operatorImage = from.operatorImage;
      openShift = from.openShift;
      snapshotApi = from.snapshotApi;
      addonsTokenAudience = from.addonsTokenAudience;
      snapshotMetadataApi = from.snapshotMetadataApi;
      images = from.images;
      groupSnapshotApi = from.groupSnapshotApi;
      monitoringApi = from.monitoringApi;
    }

    private Settings settings() {
      return new Settings(
          namespace,
          operatorImage,
          openShift,
          snapshotApi,
          addonsTokenAudience,
          snapshotMetadataApi,
          images,
          groupSnapshotApi,
          monitoringApi);
    }
  }
}
