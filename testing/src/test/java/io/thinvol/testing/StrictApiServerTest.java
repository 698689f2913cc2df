package io.thinvol.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class StrictApiServerTest {

  TestCluster cluster;
  KubernetesClient operator;

  @BeforeEach
  void start() {
    cluster = TestCluster.start();
    cluster.namespace(TestCluster.OPERATOR_NAMESPACE);
    operator = cluster.operator();
  }

  @AfterEach
  void stop() {
    operator.close();
    cluster.close();
  }

  private static GenericKubernetesResource backend(String yaml) {
    return Serialization.unmarshal(
        "apiVersion: thinvol.io/v1alpha1\nkind: StorageBackend\n" + yaml,
        GenericKubernetesResource.class);
  }

  @Test
  void finalizerPatch() {
    cluster.admin().resource(backend("metadata:\n  name: local\n")).create();
    long start = System.nanoTime();
    GenericKubernetesResource patched =
        operator
            .genericKubernetesResources("thinvol.io/v1alpha1", "StorageBackend")
            .withName("local")
            .patch(
                PatchContext.of(PatchType.JSON),
                "[{\"op\":\"add\",\"path\":\"/metadata/finalizers\",\"value\":[\"thinvol.io/x\"]}]");
    System.out.println("patch took " + (System.nanoTime() - start) / 1_000_000 + " ms");
    assertThat(patched.getMetadata().getFinalizers()).containsExactly("thinvol.io/x");
  }

  @Test
  void celRulesRefuseDuplicateStorageClassNames() {
    long start = System.nanoTime();
    assertThatThrownBy(
            () ->
                cluster
                    .admin()
                    .resource(
                        backend(
                            "metadata:\n  name: dup\nspec:\n  storageClasses:\n  - name: a\n"
                                + "  - name: a\n"))
                    .create())
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("422");
    System.out.println("create took " + (System.nanoTime() - start) / 1_000_000 + " ms");
  }
}
