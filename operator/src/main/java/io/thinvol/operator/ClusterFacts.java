package io.thinvol.operator;

import io.fabric8.kubernetes.api.model.APIGroup;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.thinvol.operator.model.GroupSnapshotModel;
import io.thinvol.operator.model.SnapshotMetadataService;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What the cluster offers, read once at start: it decides which optional objects to create.
 *
 * @param snapshotMetadataApi the cluster serves the SnapshotMetadataService CRD in the version the
 *     external-snapshot-metadata sidecar reads
 * @param groupSnapshotApi the cluster serves the group snapshot CRDs in the version the
 *     csi-snapshotter reads
 */
public record ClusterFacts(
    boolean openShift, boolean snapshotApi, boolean snapshotMetadataApi, boolean groupSnapshotApi) {

  static final String OPENSHIFT_SECURITY = "security.openshift.io";
  static final String SNAPSHOTS = "snapshot.storage.k8s.io";

  public static ClusterFacts of(KubernetesClient client) {
    List<APIGroup> served = client.getApiGroups().getGroups();
    Set<String> groups = served.stream().map(APIGroup::getName).collect(Collectors.toSet());
    return new ClusterFacts(
        groups.contains(OPENSHIFT_SECURITY),
        groups.contains(SNAPSHOTS),
        serves(served, SnapshotMetadataService.GROUP, SnapshotMetadataService.API_VERSION),
        serves(served, GroupSnapshotModel.GROUP, GroupSnapshotModel.API_VERSION));
  }

  private static boolean serves(List<APIGroup> served, String name, String apiVersion) {
    return served.stream()
        .filter(group -> group.getName().equals(name))
        .flatMap(group -> group.getVersions().stream())
        .anyMatch(version -> version.getGroupVersion().equals(apiVersion));
  }
}
