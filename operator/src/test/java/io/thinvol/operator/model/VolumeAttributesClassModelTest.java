package io.thinvol.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.api.v1alpha1.StorageBackend;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** What VolumeAttributesClass and the driver's ioMode parameter need from the desired objects. */
class VolumeAttributesClassModelTest {

  private static final Settings SETTINGS =
      new Settings("thinvol-system", "quay.io/thinvol/thinvol:0.1.0", false, true);

  private static final StorageBackend BACKEND =
      Serialization.unmarshal(
          """
          apiVersion: thinvol.io/v1alpha1
          kind: StorageBackend
          metadata:
            name: local
          spec:
            storageClasses:
            - name: cached
              ioMode: buffered
            - name: plain
          """,
          StorageBackend.class);

  @Test
  @DisplayName("StorageClass: ioMode becomes the driver's parameter; unset leaves the default")
  void ioModeParameter() {
    List<StorageClass> classes = StorageClassModel.desired(BACKEND);
    assertThat(classes.get(0).getParameters()).containsEntry("ioMode", "buffered");
    assertThat(classes.get(1).getParameters()).doesNotContainKey("ioMode");
  }

  @Test
  @DisplayName("csi-resizer: ModifyVolume on, also with an older resizer image")
  void resizerModifiesVolumes() {
    Container resizer =
        NodeDaemonSetModel.desired(BACKEND, SETTINGS, true)
            .getSpec()
            .getTemplate()
            .getSpec()
            .getContainers()
            .stream()
            .filter(c -> c.getName().equals("csi-resizer"))
            .findFirst()
            .orElseThrow();
    assertThat(resizer.getArgs()).contains("--feature-gates=VolumeAttributesClass=true");
  }

  @Test
  @DisplayName("RBAC: the resizer reads VolumeAttributesClasses and records the PV's new class")
  void resizerRbac() {
    List<PolicyRule> rules = RbacModel.clusterRole(SETTINGS).getRules();
    assertThat(verbs(rules, "storage.k8s.io", "volumeattributesclasses"))
        .containsExactlyInAnyOrder("get", "list", "watch");
    assertThat(verbs(rules, "", "persistentvolumes")).contains("patch");
    assertThat(verbs(rules, "", "persistentvolumeclaims/status")).contains("patch");
  }

  private static List<String> verbs(List<PolicyRule> rules, String group, String resource) {
    return rules.stream()
        .filter(r -> r.getApiGroups().contains(group) && r.getResources().contains(resource))
        .flatMap(r -> r.getVerbs().stream())
        .toList();
  }
}
