package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.api.v1alpha1.StorageClassSpec;
import io.thinvol.operator.model.Images;
import io.thinvol.operator.model.Settings;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * An operator upgrade as a cluster sees it: the old operator stops, the new one (another image, the
 * same driver image) takes over and reconciles; the node DaemonSet is not written to.
 */
class OperatorUpgradeTest extends MockClusterTest {

  private static final String DRIVER = "quay.io/thinvol/thinvol-driver:1.0.0";

  private static Settings release(String version) {
    return new Settings(NAMESPACE, "quay.io/thinvol/thinvol:" + version, false, true)
        .withImages(Images.fromEnvironment(Map.of("RELATED_IMAGE_DRIVER", DRIVER)::get));
  }

  @Override
  Settings settings() {
    return release("0.1.0");
  }

  @Test
  @DisplayName("A new operator with the same driver image leaves the node DaemonSet untouched")
  void upgradeLeavesNodePodsAlone() throws Exception {
    apply("metadata:\n  name: up\nspec:\n  storageClasses:\n  - name: up\n");
    DaemonSet before = namespaced(DaemonSet.class, "thinvol-up-node");
    assertThat(before.getSpec().getTemplate().getSpec().getContainers().get(0).getImage())
        .isEqualTo(DRIVER);

    restartOperator(release("0.2.0"));
    // Proof that the new operator reconciled this backend: it creates a StorageClass added now.
    editSpec(
        "up",
        spec -> {
          StorageClassSpec second = new StorageClassSpec();
          second.setName("up-second");
          spec.getStorageClasses().add(second);
        });
    clusterScoped(StorageClass.class, "up-second");

    DaemonSet after =
        client.apps().daemonSets().inNamespace(NAMESPACE).withName("thinvol-up-node").get();
    assertThat(after.getMetadata().getGeneration()).isEqualTo(before.getMetadata().getGeneration());
    assertThat(after.getMetadata().getResourceVersion())
        .isEqualTo(before.getMetadata().getResourceVersion());
    assertThat(Serialization.asYaml(after.getSpec().getTemplate()))
        .isEqualTo(Serialization.asYaml(before.getSpec().getTemplate()));
  }
}
