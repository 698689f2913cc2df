package io.thinvol.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.api.v1alpha1.StorageBackend;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** What an operator upgrade does to the node pods: nothing, unless the driver changed. */
class UpgradeTemplateTest {

  private static final String DRIVER = "quay.io/thinvol/thinvol-driver@sha256:" + "ab".repeat(32);

  private static Settings operator(String version, String driverImage) {
    return new Settings("thinvol-system", "quay.io/thinvol/thinvol:" + version, false, true)
        .withImages(Images.fromEnvironment(Map.of("RELATED_IMAGE_DRIVER", driverImage)::get));
  }

  private static final StorageBackend BACKEND =
      Serialization.unmarshal(
          """
          apiVersion: thinvol.io/v1alpha1
          kind: StorageBackend
          metadata:
            name: fast
          spec:
            sparseFile:
              dataDir: /mnt/ssd/thinvol
            storageClasses:
            - name: fast
          """,
          StorageBackend.class);

  private static String template(Settings settings) {
    return Serialization.asYaml(
        NodeDaemonSetModel.desired(BACKEND, settings, true).getSpec().getTemplate());
  }

  @Test
  @DisplayName(
      "An operator upgrade with the same driver image leaves the pod template byte-identical")
  void operatorUpgradeKeepsTemplate() {
    String before = template(operator("0.1.0", DRIVER));
    String after = template(operator("0.2.0", DRIVER));

    assertThat(after).isEqualTo(before);
    assertThat(before).contains(DRIVER).doesNotContain("0.1.0").doesNotContain("thinvol:");
  }

  @Test
  @DisplayName("A new driver image changes the template, so the nodes roll")
  void driverUpgradeRolls() {
    assertThat(template(operator("0.1.0", DRIVER + "-next")))
        .isNotEqualTo(template(operator("0.1.0", DRIVER)));
  }

  @Test
  @DisplayName(
      "The driver image comes from RELATED_IMAGE_DRIVER, else the driver's own image of its version")
  void driverImageFromEnvironment() {
    assertThat(Images.fromEnvironment(Map.of("RELATED_IMAGE_DRIVER", DRIVER)::get).driver())
        .isEqualTo(DRIVER);
    assertThat(Images.fromEnvironment(Map.of("RELATED_IMAGE_DRIVER", " ")::get).driver())
        .isEqualTo(DriverRelease.IMAGE);
    assertThat(Images.fromEnvironment(Map.<String, String>of()::get).driver())
        .isEqualTo(DriverRelease.IMAGE);
    assertThat(DriverRelease.IMAGE)
        .as("the driver's repository, tagged with the build's thinvol.driver.version")
        .isEqualTo("quay.io/thinvol/thinvol-driver:" + System.getProperty("thinvol.driver.version"))
        .doesNotContain("${");
  }

  @Test
  @DisplayName(
      "The provisioner: capacity owned by the DaemonSet (level 1), no GA Topology feature gate")
  void provisionerFlags() {
    DaemonSet daemonSet = NodeDaemonSetModel.desired(BACKEND, operator("0.1.0", DRIVER), true);
    Container provisioner =
        daemonSet.getSpec().getTemplate().getSpec().getContainers().stream()
            .filter(c -> c.getName().equals("csi-provisioner"))
            .findFirst()
            .orElseThrow();
    assertThat(provisioner.getArgs())
        .contains("--enable-capacity=true", "--capacity-ownerref-level=1")
        .noneMatch(arg -> arg.startsWith("--feature-gates"));
    // The owner is found from the pod up: the provisioner needs its pod's name and namespace.
    assertThat(provisioner.getEnv()).extracting(e -> e.getName()).contains("POD_NAME", "NAMESPACE");
  }
}
