package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** A StorageBackend's storageClasses choose the driver's I/O mode; the CRD refuses other modes. */
class IoModeStorageClassTest extends MockClusterTest {

  @Test
  @DisplayName("ioMode of a storageClasses entry reaches the StorageClass, before parameters'")
  void ioModeReachesTheStorageClass() {
    apply(
        """
        metadata:
          name: local
        spec:
          storageClasses:
          - name: cached
            ioMode: buffered
          - name: direct
            ioMode: direct
            parameters:
              ioMode: buffered
        """);
    assertThat(clusterScoped(StorageClass.class, "cached").getParameters())
        .containsEntry("ioMode", "buffered");
    assertThat(clusterScoped(StorageClass.class, "direct").getParameters())
        .containsEntry("ioMode", "direct");
  }

  @Test
  @DisplayName("The CRD refuses an ioMode that is not direct or buffered")
  void crdRefusesOtherModes() {
    GenericKubernetesResource turbo =
        Serialization.unmarshal(
            """
            apiVersion: thinvol.io/v1alpha1
            kind: StorageBackend
            metadata:
              name: turbo
            spec:
              storageClasses:
              - name: t
                ioMode: turbo
            """,
            GenericKubernetesResource.class);
    assertThatThrownBy(() -> client.resource(turbo).create())
        .isInstanceOfSatisfying(
            KubernetesClientException.class,
            e -> {
              assertThat(e.getCode()).isEqualTo(422);
              assertThat(e.getStatus().getMessage())
                  .contains("spec.storageClasses[0].ioMode")
                  .contains("\"turbo\"");
            });
  }
}
