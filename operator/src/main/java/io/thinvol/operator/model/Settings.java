package io.thinvol.operator.model;

/**
 * What the operator knows about where it runs.
 *
 * @param namespace the operator's namespace, where the namespaced objects go
 * @param operatorImage the operator's own image, which also carries the driver
 * @param openShift the cluster is OpenShift (SCCs, Pod Security label sync)
 * @param snapshotApi the cluster serves snapshot.storage.k8s.io (VolumeSnapshot CRDs)
 */
public record Settings(
    String namespace, String operatorImage, boolean openShift, boolean snapshotApi) {}
