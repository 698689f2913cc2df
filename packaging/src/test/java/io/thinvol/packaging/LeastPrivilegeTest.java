package io.thinvol.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.testing.RepoFiles;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The bundle's ClusterServiceVersion (what OLM grants) changes no SecurityContextConstraints,
 * ClusterRole, ClusterRoleBinding, Secret or ConfigMap (OpenShift's console dashboard is one, in
 * another namespace) by just any name: besides create (which RBAC cannot limit to a name), only the
 * operator's own fixed names.
 */
class LeastPrivilegeTest {

  private static final Set<String> SENSITIVE =
      Set.of(
          "security.openshift.io/securitycontextconstraints",
          "rbac.authorization.k8s.io/clusterroles",
          "rbac.authorization.k8s.io/clusterrolebindings",
          "/secrets",
          "/configmaps");

  private static final Set<String> WRITES = Set.of("update", "patch", "delete", "deletecollection");

  @Test
  void noUnnamedWriteOnSensitiveKinds() {
    Set<String> unnamed = new TreeSet<>();
    for (PolicyRule rule : rules()) {
      boolean named = rule.getResourceNames() != null && !rule.getResourceNames().isEmpty();
      boolean writes = rule.getVerbs().stream().anyMatch(WRITES::contains);
      for (String group : rule.getApiGroups()) {
        for (String resource : rule.getResources()) {
          String kind = group + "/" + resource;
          if (SENSITIVE.contains(kind) && writes && !named) {
            unnamed.add(kind);
          }
        }
      }
    }
    assertThat(unnamed).as("docs/install.md, \"The operator's rights\"").isEmpty();
  }

  @Test
  void noRightOnAnySecurityContextConstraints() {
    assertThat(rules()).noneMatch(rule -> rule.getApiGroups().contains("security.openshift.io"));
  }

  @Test
  void clusterRolesOnlyByNameBesidesCreate() {
    assertOnlyByNameBesidesCreate(
        "clusterroles", "thinvol-node", "system:openshift:scc:privileged");
  }

  @Test
  void clusterRoleBindingsOnlyByNameBesidesCreate() {
    assertOnlyByNameBesidesCreate(
        "clusterrolebindings", "thinvol-node", "thinvol-node-privileged-scc");
  }

  @Test
  void secretsOnlyByNameBesidesCreate() {
    assertOnlyByNameBesidesCreate("secrets", "thinvol-addons-tls", "thinvol-snapshot-metadata-tls");
  }

  private static void assertOnlyByNameBesidesCreate(String resource, String... names) {
    assertThat(rules())
        .filteredOn(rule -> rule.getResources().contains(resource))
        .isNotEmpty()
        .allSatisfy(
            rule -> {
              if (rule.getResourceNames() == null || rule.getResourceNames().isEmpty()) {
                assertThat(rule.getVerbs())
                    .as("create cannot name its object")
                    .containsOnly("create");
              } else {
                assertThat(rule.getResourceNames()).isSubsetOf(names);
              }
            });
  }

  /** Every rule of the CSV, cluster-wide and in the operator's namespace. */
  private static List<PolicyRule> rules() {
    JsonNode install =
        Serialization.unmarshal(RepoFiles.clusterServiceVersion(), JsonNode.class)
            .at("/spec/install/spec");
    List<PolicyRule> rules = new ArrayList<>();
    for (String field : List.of("clusterPermissions", "permissions")) {
      for (JsonNode permission : install.path(field)) {
        rules.addAll(
            List.of(
                Serialization.jsonMapper()
                    .convertValue(permission.path("rules"), PolicyRule[].class)));
      }
    }
    return rules;
  }
}
