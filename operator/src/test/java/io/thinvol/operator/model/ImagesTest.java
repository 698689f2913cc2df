package io.thinvol.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.api.v1alpha1.StorageBackend;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Disconnected installs: the node pods' images come from RELATED_IMAGE_* when they are set. */
class ImagesTest {

  private static final String OPERATOR = "quay.io/thinvol/thinvol:0.1.0";

  private static final Map<String, String> MIRRORED =
      Map.of(
          "RELATED_IMAGE_DRIVER", "mirror.example/thinvol-driver@sha256:" + "a".repeat(64),
          "RELATED_IMAGE_PROVISIONER", "mirror.example/csi-provisioner@sha256:" + "b".repeat(64),
          "RELATED_IMAGE_SNAPSHOTTER", "  ");

  private static StorageBackend backend(String spec) {
    return Serialization.unmarshal(
        "apiVersion: thinvol.io/v1alpha1\nkind: StorageBackend\nmetadata:\n  name: local\n" + spec,
        StorageBackend.class);
  }

  private static Map<String, String> imagesByContainer(StorageBackend backend, Images defaults) {
    // every optional sidecar deployed (snapshot API and SnapshotMetadataServices served)
    Settings settings =
        new Settings("thinvol-system", OPERATOR, true, true)
            .withAddonsTokenAudience("aud")
            .withSnapshotMetadataApi(true)
            .withImages(defaults);
    return NodeDaemonSetModel.desired(backend, settings, true)
        .getSpec()
        .getTemplate()
        .getSpec()
        .getContainers()
        .stream()
        .collect(java.util.stream.Collectors.toMap(Container::getName, Container::getImage));
  }

  @Test
  @DisplayName("Set variables replace the compiled-in images; blank or unset ones do not")
  void theEnvironmentChoosesTheDefaults() {
    Images images = Images.fromEnvironment(MIRRORED::get);

    assertThat(images.driver()).isEqualTo(MIRRORED.get("RELATED_IMAGE_DRIVER"));
    assertThat(images.provisioner()).isEqualTo(MIRRORED.get("RELATED_IMAGE_PROVISIONER"));
    assertThat(images.snapshotter()).isEqualTo(Images.SNAPSHOTTER);
    assertThat(images.resizer()).isEqualTo(Images.RESIZER);
    assertThat(Images.fromEnvironment(name -> null)).isEqualTo(Images.compiled());
  }

  @Test
  @DisplayName("The DaemonSet runs the environment's images; a backend's override still wins")
  void theDaemonSetRunsThem() {
    Images images = Images.fromEnvironment(MIRRORED::get);

    Map<String, String> plain = imagesByContainer(backend(""), images);
    assertThat(plain)
        .containsEntry("driver", MIRRORED.get("RELATED_IMAGE_DRIVER"))
        .containsEntry("csi-provisioner", MIRRORED.get("RELATED_IMAGE_PROVISIONER"))
        .containsEntry("csi-snapshotter", Images.SNAPSHOTTER);
    assertThat(plain.values()).containsExactlyInAnyOrderElementsOf(images.byVariable().values());

    Map<String, String> overridden =
        imagesByContainer(
            backend("spec:\n  images:\n    provisioner: other.example/provisioner:v1\n"), images);
    assertThat(overridden).containsEntry("csi-provisioner", "other.example/provisioner:v1");
  }
}
