package io.thinvol.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.api.v1alpha1.StorageBackend;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The data dir as the driver container sees it. */
class DataDirMountModelTest {

  private static final Settings SETTINGS =
      new Settings("thinvol-system", "quay.io/thinvol/thinvol:0.1.0", false, true);

  private static Container driver(String spec) {
    StorageBackend backend =
        Serialization.unmarshal(
            "apiVersion: thinvol.io/v1alpha1\nkind: StorageBackend\nmetadata:\n  name: d\n" + spec,
            StorageBackend.class);
    return NodeDaemonSetModel.desired(backend, SETTINGS, false)
        .getSpec()
        .getTemplate()
        .getSpec()
        .getContainers()
        .get(0);
  }

  @Test
  @DisplayName("The data dir is mounted HostToContainer: a disk mounted later reaches the driver")
  void hostToContainer() {
    assertThat(driver("spec: {}\n").getVolumeMounts())
        .filteredOn(m -> m.getName().equals("data-dir"))
        .singleElement()
        .satisfies(
            m -> {
              assertThat(m.getMountPath()).isEqualTo("/var/lib/thinvol/d");
              assertThat(m.getMountPropagation()).isEqualTo("HostToContainer");
            });
  }

  @Test
  @DisplayName("spec.sparseFile.dedicatedMount reaches the driver as its flag, false by default")
  void dedicatedMountFlag() {
    assertThat(driver("spec: {}\n").getArgs()).contains("--data-dir-dedicated-mount=false");
    assertThat(driver("spec:\n  sparseFile:\n    dedicatedMount: true\n").getArgs())
        .contains("--data-dir-dedicated-mount=true");
  }
}
