package io.thinvol.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.api.v1alpha1.MonitoringSpec;
import io.thinvol.api.v1alpha1.SparseFileSpec;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.api.v1alpha1.StorageClassSpec;
import java.io.IOException;
import java.io.InputStream;
import org.junit.jupiter.api.Test;

class StorageBackendModelTest {

  private static final String SAMPLE =
      """
      apiVersion: thinvol.io/v1alpha1
      kind: StorageBackend
      metadata:
        name: local
      spec:
        sparseFile:
          dataDir: /var/lib/thinvol/local
          filesystem: xfs
          overprovisionRatio: 2.5
        nodeSelector:
          node-role.kubernetes.io/worker: ""
        storageClasses:
        - name: thin
          default: true
          reclaimPolicy: Retain
          mountOptions: [noatime]
        reclaimSpace:
          schedule: "@daily"
          maxConcurrentPerNode: 2
      """;

  @Test
  void readsWhatAnAdminWrites() {
    StorageBackend backend = Serialization.unmarshal(SAMPLE, StorageBackend.class);
    assertThat(backend.driverName()).isEqualTo("local.thinvol.io");
    assertThat(backend.getSpec().getSparseFile().getFilesystem())
        .isEqualTo(SparseFileSpec.Filesystem.XFS);
    assertThat(backend.getSpec().getSparseFile().getOverprovisionRatio()).isEqualTo(2.5);
    StorageClassSpec storageClass = backend.getSpec().getStorageClasses().get(0);
    assertThat(storageClass.getIsDefault()).isTrue();
    assertThat(storageClass.getReclaimPolicy()).isEqualTo(StorageClassSpec.ReclaimPolicy.Retain);
    assertThat(backend.getSpec().getReclaimSpace().getSchedule()).isEqualTo("@daily");
    assertThat(Serialization.asYaml(backend))
        .contains("default: true")
        .contains("filesystem: \"xfs\"");
  }

  @Test
  void theCrdTellsTheWholeStory() throws IOException {
    CustomResourceDefinition crd;
    try (InputStream in =
        getClass().getResourceAsStream("/META-INF/fabric8/storagebackends.thinvol.io-v1.yml")) {
      crd = Serialization.unmarshal(in, CustomResourceDefinition.class);
    }
    assertThat(crd.getSpec().getScope()).isEqualTo("Cluster");
    assertThat(crd.getSpec().getNames().getShortNames()).containsExactly("sb");
    var version = crd.getSpec().getVersions().get(0);
    assertThat(version.getSubresources().getStatus()).isNotNull();
    assertThat(version.getAdditionalPrinterColumns())
        .extracting(c -> c.getName())
        .contains("Driver", "Ready Nodes", "Ready", "Age");
    JSONSchemaProps spec = version.getSchema().getOpenAPIV3Schema().getProperties().get("spec");
    JSONSchemaProps sparseFile = spec.getProperties().get("sparseFile");
    assertThat(sparseFile.getProperties().get("overprovisionRatio").getMinimum()).isEqualTo(1.0);
    assertThat(sparseFile.getProperties().get("dataDir").getXKubernetesValidations())
        .extracting(r -> r.getRule())
        .containsExactly("self == oldSelf");
    assertThat(
            spec.getProperties()
                .get("reclaimSpace")
                .getProperties()
                .get("schedule")
                .getDefault()
                .asText())
        .isEqualTo("@weekly");
    JSONSchemaProps monitoring = spec.getProperties().get("monitoring");
    assertThat(monitoring.getXKubernetesValidations())
        .extracting(r -> r.getRule())
        .containsExactly(MonitoringSpec.ORDER_RULE);
    assertThat(monitoring.getProperties().get("dataDirWarningPercent").getDefault().asInt())
        .isEqualTo(MonitoringSpec.DEFAULT_WARNING_PERCENT);
    assertThat(monitoring.getProperties().get("dataDirCriticalPercent").getMaximum())
        .isEqualTo(99.0);
    assertDescribed("spec", spec);
  }

  /** Every field a person can set has a description. */
  private static void assertDescribed(String path, JSONSchemaProps schema) {
    if (schema.getProperties() == null) {
      return;
    }
    schema
        .getProperties()
        .forEach(
            (name, child) -> {
              boolean fromKubernetesModel =
                  path.contains("tolerations")
                      || path.contains("imagePullSecrets")
                      || path.contains("sidecarResources.");
              if (!fromKubernetesModel) {
                assertThat(child.getDescription())
                    .as("%s.%s has a description", path, name)
                    .isNotBlank();
              }
              assertDescribed(path + "." + name, child);
              if (child.getItems() != null && child.getItems().getSchema() != null) {
                assertDescribed(path + "." + name + "[]", child.getItems().getSchema());
              }
            });
  }
}
