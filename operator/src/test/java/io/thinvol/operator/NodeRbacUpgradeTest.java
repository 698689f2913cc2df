package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.thinvol.operator.model.Names;
import io.thinvol.operator.model.RbacModel;
import io.thinvol.testing.ApiRequest;
import io.thinvol.testing.StrictApiServer;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Upgrading from a version that gave each backend a ClusterRole of its own: the backend's binding
 * is made again to the shared node ClusterRole, whose rules the operator corrects, by name; the old
 * ClusterRole, which the operator may no longer touch, is left unbound.
 */
class NodeRbacUpgradeTest extends MockClusterTest {

  @Test
  @DisplayName("An older version's per-backend ClusterRole is unbound; the shared one is corrected")
  void bindingMovesToTheSharedClusterRole() {
    apply("metadata:\n  name: up\n");
    ClusterRoleBinding current = clusterScoped(ClusterRoleBinding.class, "thinvol-up-node");
    // What an older version left: its own ClusterRole, bound by a binding the backend owns, and
    // the shared ClusterRole with other rules.
    client
        .resource(
            new ClusterRoleBuilder()
                .withNewMetadata()
                .withName("thinvol-up-node")
                .withLabels(current.getMetadata().getLabels())
                .withOwnerReferences(current.getMetadata().getOwnerReferences())
                .endMetadata()
                .withRules(RbacModel.clusterRules())
                .build())
        .create();
    client
        .rbac()
        .clusterRoles()
        .withName(Names.NODE_CLUSTER_ROLE)
        .edit(
            role -> {
              role.setRules(
                  List.of(
                      new PolicyRuleBuilder()
                          .withApiGroups("")
                          .withResources("pods")
                          .withVerbs("get")
                          .build()));
              return role;
            });
    client.resource(current).withTimeoutInMillis(10_000).delete();
    client
        .resource(
            new ClusterRoleBindingBuilder(current)
                .editMetadata()
                .withResourceVersion(null)
                .withUid(null)
                .endMetadata()
                .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", "thinvol-up-node")
                .build())
        .create();

    await(
        "the binding to refer to the shared ClusterRole",
        () -> {
          ClusterRoleBinding binding =
              client.rbac().clusterRoleBindings().withName("thinvol-up-node").get();
          return binding != null
              && binding.getRoleRef().getName().equals(Names.NODE_CLUSTER_ROLE)
              && binding.getSubjects().get(0).getName().equals("thinvol-up-node");
        });
    ClusterRole shared = client.rbac().clusterRoles().withName(Names.NODE_CLUSTER_ROLE).get();
    assertThat(shared.getRules()).isEqualTo(RbacModel.clusterRole(settings()).getRules());
    assertThat(client.rbac().clusterRoles().withName("thinvol-up-node").get())
        .as("left for the garbage collector (owned by the backend) or the admin")
        .isNotNull();
    assertThat(operatorDecisions())
        .extracting(StrictApiServer.Decision::request)
        .filteredOn(r -> r.resource().equals("clusterroles") && !r.verb().equals("create"))
        .as("no request on a ClusterRole but the shared one")
        .allSatisfy(r -> assertThat(r.name()).isEqualTo(Names.NODE_CLUSTER_ROLE))
        .extracting(ApiRequest::verb)
        .contains("get", "patch");
  }
}
