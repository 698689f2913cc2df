package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.Names;
import io.thinvol.testing.ApiRequest;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Every backend's node ServiceAccount is bound by the one ClusterRoleBinding {@code thinvol-node},
 * which the operator reaches by name only: a backend's subject is added when it is deployed and
 * removed when it is deleted.
 */
class SharedNodeBindingsTest extends MockClusterTest {

  @Test
  @DisplayName("One binding lists every backend's node ServiceAccount, minus a deleted backend's")
  void oneBindingForEveryBackend() {
    apply("metadata:\n  name: alpha\n");
    apply("metadata:\n  name: beta\nspec:\n  storageClasses:\n  - name: beta\n");
    await(
        "both node ServiceAccounts bound",
        () -> List.of("thinvol-alpha-node", "thinvol-beta-node").equals(subjects()));
    ClusterRoleBinding binding =
        clusterScoped(ClusterRoleBinding.class, Names.NODE_CLUSTER_ROLE_BINDING);
    assertThat(binding.getRoleRef().getName()).isEqualTo(Names.NODE_CLUSTER_ROLE);
    assertThat(binding.getMetadata().getOwnerReferences())
        .as("shared, so owned by no backend")
        .isEmpty();
    assertThat(binding.getSubjects()).extracting(Subject::getNamespace).containsOnly(NAMESPACE);

    client.resources(StorageBackend.class).withName("alpha").delete();
    await(
        "the deleted backend's ServiceAccount unbound",
        () -> List.of("thinvol-beta-node").equals(subjects()));
    client.resources(StorageBackend.class).withName("beta").delete();
    await("nothing bound", () -> List.of().equals(subjects()));

    assertThat(operatorDecisions())
        .extracting(d -> d.request())
        .filteredOn(r -> r.resource().equals("clusterrolebindings"))
        .as("every request but create names the shared binding")
        .allSatisfy(
            r -> {
              if (!r.verb().equals("create")) {
                assertThat(r.name()).isEqualTo(Names.NODE_CLUSTER_ROLE_BINDING);
              }
            })
        .extracting(ApiRequest::verb)
        .contains("create", "get", "patch")
        .doesNotContain("list", "watch", "delete", "deletecollection");
  }

  /** The names bound, or null while the binding does not exist. */
  private List<String> subjects() {
    ClusterRoleBinding binding =
        client.rbac().clusterRoleBindings().withName(Names.NODE_CLUSTER_ROLE_BINDING).get();
    return binding == null ? null : binding.getSubjects().stream().map(Subject::getName).toList();
  }
}
