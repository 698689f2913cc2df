package io.thinvol.operator.model;

/**
 * Who owns the CSIStorageCapacity objects each node's csi-provisioner publishes. The provisioner
 * walks {@value #OWNERREF_LEVEL} owner reference(s) up from its own pod: 0 is the pod, 1 is the
 * node DaemonSet. Each node's provisioner finds its objects again by its label ({@code
 * csi.storage.k8s.io/managed-by: external-provisioner-<node>}), so owned by the DaemonSet they
 * outlive any one pod: a driver restart or a rolling update leaves the node's capacity published,
 * and WaitForFirstConsumer pods can keep choosing the node. Owned by the pod (level 0), they were
 * garbage-collected with every old pod. They still go when the DaemonSet goes (the StorageBackend
 * is deleted).
 */
final class CapacityOwner {

  static final int OWNERREF_LEVEL = 1;

  private CapacityOwner() {}
}
