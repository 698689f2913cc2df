package io.thinvol.operator.model;

import io.thinvol.addons.call.ProjectedToken;

/**
 * What the operator knows about where it runs.
 *
 * @param namespace the operator's namespace, where the namespaced objects go
 * @param operatorImage the operator's own image
 * @param openShift the cluster is OpenShift (SCCs, Pod Security label sync)
 * @param snapshotApi the cluster serves snapshot.storage.k8s.io (VolumeSnapshot CRDs)
 * @param addonsTokenAudience the audience of the operator's projected token, which the drivers
 *     require of their callers
 * @param driverImage the node pods' driver image: set apart from the operator's own image so that a
 *     release that changes only the operator or the addons leaves every node's pods alone (see
 *     docs/upgrade.md)
 */
public record Settings(
    String namespace,
    String operatorImage,
    boolean openShift,
    boolean snapshotApi,
    String addonsTokenAudience,
    String driverImage) {

  /** With the default addons token audience; the driver runs from the operator's image. */
  public Settings(String namespace, String operatorImage, boolean openShift, boolean snapshotApi) {
    this(
        namespace,
        operatorImage,
        openShift,
        snapshotApi,
        ProjectedToken.DEFAULT_AUDIENCE,
        operatorImage);
  }
}
