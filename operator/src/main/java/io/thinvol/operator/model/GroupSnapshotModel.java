package io.thinvol.operator.model;

import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.thinvol.api.v1alpha1.StorageBackend;
import java.util.List;

/**
 * Volume group snapshots: the csi-snapshotter's feature gate, the rules it then needs and each
 * backend's VolumeGroupSnapshotClass. Only where the cluster serves the snapshot API and
 * groupsnapshot.storage.k8s.io in the version the snapshotter reads: with the gate on and those
 * CRDs missing, the snapshotter stops serving ordinary snapshots too.
 */
public final class GroupSnapshotModel {

  public static final String GROUP = "groupsnapshot.storage.k8s.io";
  // The version csi-snapshotter v8.6 reads
  public static final String VERSION = "v1";
  public static final String API_VERSION = GROUP + "/" + VERSION;
  static final String FEATURE_GATE = "--feature-gates=CSIVolumeGroupSnapshot=true";

  private GroupSnapshotModel() {}

  /** Whether the cluster has what the snapshotter needs to serve group snapshots. */
  public static boolean deployed(Settings settings) {
    return settings.snapshotApi() && settings.groupSnapshotApi();
  }

  /** The backend's VolumeGroupSnapshotClass, named like its VolumeSnapshotClass. */
  public static VolumeGroupSnapshotClass desiredClass(StorageBackend backend) {
    return VolumeSnapshotClassModel.describe(new VolumeGroupSnapshotClass(), backend);
  }

  /** What the snapshotter does with group snapshots; the operator must hold it too, to grant it. */
  public static List<PolicyRule> clusterRules() {
    return List.of(
        rule("volumegroupsnapshotclasses", "get", "list", "watch"),
        rule("volumegroupsnapshotcontents", "get", "list", "watch", "update", "patch"),
        rule("volumegroupsnapshotcontents/status", "update", "patch"));
  }

  private static PolicyRule rule(String resource, String... verbs) {
    return new PolicyRuleBuilder()
        .withApiGroups(GROUP)
        .withResources(resource)
        .withVerbs(verbs)
        .build();
  }
}
