package io.thinvol.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.api.v1alpha1.StorageBackend;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The snapshotter's group snapshot gate and rules follow the API: with the gate on and the CRDs
 * missing, the snapshotter would stop serving ordinary snapshots too.
 */
class GroupSnapshotModelTest {

  private static final String IMAGE = "quay.io/thinvol/thinvol:0.1.0";
  private static final StorageBackend BACKEND =
      Serialization.unmarshal(
          "apiVersion: thinvol.io/v1alpha1\nkind: StorageBackend\nmetadata:\n  name: local\n",
          StorageBackend.class);

  private static Settings settings(boolean snapshotApi, boolean groupSnapshotApi) {
    return new Settings("thinvol-system", IMAGE, false, snapshotApi)
        .withGroupSnapshotApi(groupSnapshotApi);
  }

  @ParameterizedTest(name = "snapshot API {0}, group snapshot API {1}: deployed {2}")
  @CsvSource({"true, true, true", "true, false, false", "false, true, false"})
  @DisplayName("The snapshotter's gate is on iff the group snapshot API is served")
  void featureGate(boolean snapshotApi, boolean groupSnapshotApi, boolean deployed) {
    Settings settings = settings(snapshotApi, groupSnapshotApi);
    List<String> args =
        NodeDaemonSetModel.desired(BACKEND, settings, true)
            .getSpec()
            .getTemplate()
            .getSpec()
            .getContainers()
            .stream()
            .filter(c -> c.getName().equals("csi-snapshotter"))
            .findFirst()
            .map(Container::getArgs)
            .orElseThrow();
    assertThat(args.contains("--feature-gates=CSIVolumeGroupSnapshot=true")).isEqualTo(deployed);
    assertThat(args).contains("--csi-address=/csi/csi.sock", "--node-deployment=true");
  }

  @ParameterizedTest(name = "snapshot API {0}, group snapshot API {1}: granted {2}")
  @CsvSource({"true, true, true", "true, false, false", "false, true, false"})
  @DisplayName("The node ClusterRole has the group snapshot rules iff the API is served")
  void clusterRoleRules(boolean snapshotApi, boolean groupSnapshotApi, boolean granted) {
    List<PolicyRule> rules =
        RbacModel.clusterRole(settings(snapshotApi, groupSnapshotApi)).getRules();
    List<PolicyRule> group =
        rules.stream().filter(r -> r.getApiGroups().contains(GroupSnapshotModel.GROUP)).toList();
    if (granted) {
      assertThat(group)
          .extracting(r -> r.getResources().get(0) + " " + r.getVerbs())
          .containsExactlyInAnyOrder(
              "volumegroupsnapshotclasses [get, list, watch]",
              "volumegroupsnapshotcontents [get, list, watch, update, patch]",
              "volumegroupsnapshotcontents/status [update, patch]");
    } else {
      assertThat(group).isEmpty();
    }
  }

  @ParameterizedTest(name = "operator may grant {0}")
  @CsvSource({
    "volumegroupsnapshotclasses, get, list, watch",
    "volumegroupsnapshotcontents, update, patch",
    "volumegroupsnapshotcontents/status, update, patch"
  })
  @DisplayName("The operator holds every group snapshot rule it grants (RBAC escalation check)")
  void operatorMayGrant(String resource, String verb1, String verb2) {
    assertThat(OperatorRbac.clusterRules(false))
        .anyMatch(
            r ->
                r.getApiGroups().contains(GroupSnapshotModel.GROUP)
                    && r.getResources().contains(resource)
                    && r.getVerbs().containsAll(List.of(verb1, verb2)));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"local"})
  @DisplayName("VolumeGroupSnapshotClass: the backend's driver, deletionPolicy Delete")
  void groupSnapshotClass(String name) {
    VolumeGroupSnapshotClass groupClass = GroupSnapshotModel.desiredClass(BACKEND);
    assertThat(groupClass.getApiVersion()).isEqualTo("groupsnapshot.storage.k8s.io/v1");
    assertThat(groupClass.getKind()).isEqualTo("VolumeGroupSnapshotClass");
    assertThat(groupClass.getMetadata().getName()).isEqualTo(name);
    assertThat(groupClass.getDriver()).isEqualTo(name + ".thinvol.io");
    assertThat(groupClass.getDeletionPolicy()).isEqualTo("Delete");
    assertThat(groupClass.getMetadata().getLabels()).isEqualTo(Names.labels(BACKEND));
  }
}
