package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.Names;
import io.thinvol.operator.model.RbacModel;
import io.thinvol.testing.ApiRequest;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Upgrading from a version that gave each backend a ClusterRole and a ClusterRoleBinding of its
 * own: the new operator binds the backend's node ServiceAccount with the shared binding and
 * corrects the shared ClusterRole, by name; the old objects, which it may no longer touch, are left
 * (the garbage collector removes them with their backend).
 */
class NodeRbacUpgradeTest extends MockClusterTest {

  @Test
  @DisplayName("After an upgrade the shared binding binds the backend; the old objects are left")
  void sharedBindingTakesOver() throws Exception {
    StorageBackend backend = apply("metadata:\n  name: up\n");
    clusterScoped(ClusterRoleBinding.class, Names.NODE_CLUSTER_ROLE_BINDING);
    // What an older version left: a ClusterRole and a binding the backend owns, no shared
    // binding, and the shared ClusterRole with other rules.
    client.rbac().clusterRoleBindings().withName(Names.NODE_CLUSTER_ROLE_BINDING).delete();
    ClusterRole oldRole =
        client
            .resource(
                new ClusterRoleBuilder()
                    .withNewMetadata()
                    .withName("thinvol-up-node")
                    .withLabels(Names.labels(backend))
                    .withOwnerReferences(ownedBy(backend))
                    .endMetadata()
                    .withRules(RbacModel.clusterRules())
                    .build())
            .create();
    ClusterRoleBinding oldBinding =
        client
            .resource(
                new ClusterRoleBindingBuilder()
                    .withNewMetadata()
                    .withName("thinvol-up-node")
                    .withLabels(Names.labels(backend))
                    .withOwnerReferences(ownedBy(backend))
                    .endMetadata()
                    .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", "thinvol-up-node")
                    .addNewSubject()
                    .withKind("ServiceAccount")
                    .withName("thinvol-up-node")
                    .withNamespace(NAMESPACE)
                    .endSubject()
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
    drainRequests();

    restartOperator(settings());

    ClusterRoleBinding shared =
        await(
            "the shared binding",
            () ->
                client
                    .rbac()
                    .clusterRoleBindings()
                    .withName(Names.NODE_CLUSTER_ROLE_BINDING)
                    .get());
    assertThat(shared.getRoleRef().getName()).isEqualTo(Names.NODE_CLUSTER_ROLE);
    assertThat(shared.getSubjects())
        .extracting(s -> s.getNamespace() + "/" + s.getName())
        .containsExactly(NAMESPACE + "/thinvol-up-node");
    await(
        "the shared ClusterRole's rules to be corrected",
        () ->
            client
                .rbac()
                .clusterRoles()
                .withName(Names.NODE_CLUSTER_ROLE)
                .get()
                .getRules()
                .equals(RbacModel.clusterRole(settings()).getRules()));
    assertThat(client.rbac().clusterRoles().withName("thinvol-up-node").get())
        .as("left for the garbage collector (owned by the backend) or the admin")
        .isEqualTo(oldRole);
    assertThat(client.rbac().clusterRoleBindings().withName("thinvol-up-node").get())
        .as("left for the garbage collector (owned by the backend) or the admin")
        .isEqualTo(oldBinding);
    List<ApiRequest> requests = drainRequests();
    assertThat(requests)
        .filteredOn(
            r ->
                (r.resource().equals("clusterroles") || r.resource().equals("clusterrolebindings"))
                    && !r.verb().equals("create"))
        .as("no request on a ClusterRole or binding but the shared ones")
        .allSatisfy(
            r ->
                assertThat(r.name()).isIn(Names.NODE_CLUSTER_ROLE, Names.NODE_CLUSTER_ROLE_BINDING))
        .extracting(r -> r.verb() + " " + r.resource())
        .contains("get clusterroles", "patch clusterroles", "get clusterrolebindings");
  }

  private static OwnerReference ownedBy(StorageBackend backend) {
    return new OwnerReferenceBuilder()
        .withApiVersion(backend.getApiVersion())
        .withKind(backend.getKind())
        .withName(backend.getMetadata().getName())
        .withUid(backend.getMetadata().getUid())
        .withController(true)
        .withBlockOwnerDeletion(false)
        .build();
  }
}
