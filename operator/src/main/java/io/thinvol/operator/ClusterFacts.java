package io.thinvol.operator;

import io.fabric8.kubernetes.api.model.APIGroup;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Set;
import java.util.stream.Collectors;

/** What the cluster offers, read once at start: it decides which optional objects to create. */
public record ClusterFacts(boolean openShift, boolean snapshotApi) {

  static final String OPENSHIFT_SECURITY = "security.openshift.io";
  static final String SNAPSHOTS = "snapshot.storage.k8s.io";

  public static ClusterFacts of(KubernetesClient client) {
    Set<String> groups =
        client.getApiGroups().getGroups().stream()
            .map(APIGroup::getName)
            .collect(Collectors.toSet());
    return new ClusterFacts(groups.contains(OPENSHIFT_SECURITY), groups.contains(SNAPSHOTS));
  }
}
