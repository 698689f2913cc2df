package io.thinvol.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The strict server authorises the operator with the CSV's rules; the chart must grant exactly the
 * same, or a Helm install would behave otherwise than the tests.
 */
class RbacSourcesTest {

  @Test
  void theChartGrantsWhatTheBundleGrants() {
    Rbac csv =
        Rbac.fromClusterServiceVersion(
            RepoFiles.clusterServiceVersion(), TestCluster.OPERATOR_NAMESPACE);
    List<PolicyRule> csvCluster =
        csv.grants().stream()
            .filter(g -> g.namespace() == null)
            .flatMap(g -> g.rules().stream())
            .toList();
    List<PolicyRule> csvNamespace =
        csv.grants().stream()
            .filter(g -> g.namespace() != null)
            .flatMap(g -> g.rules().stream())
            .toList();
    assertThat(permissions(csvCluster))
        .isEqualTo(
            permissions(
                Stream.concat(
                        chart("cluster-rules.yaml").stream(),
                        chart("openshift-cluster-rules.yaml").stream())
                    .toList()));
    assertThat(permissions(csvNamespace)).isEqualTo(permissions(chart("namespace-rules.yaml")));
    assertThat(permissions(csvCluster)).contains("list core/pods").hasSizeGreaterThan(20);
  }

  private static List<PolicyRule> chart(String file) {
    return List.of(
        Serialization.unmarshal(
            RepoFiles.read("charts/thinvol/files/" + file), PolicyRule[].class));
  }

  /** Each rule as single permissions: {@code verb group/resource[ names]}. */
  private static Set<String> permissions(List<PolicyRule> rules) {
    Set<String> out = new TreeSet<>();
    for (PolicyRule rule : rules) {
      for (String group : rule.getApiGroups()) {
        for (String resource : rule.getResources()) {
          for (String verb : rule.getVerbs()) {
            out.add(
                verb
                    + " "
                    + (group.isEmpty() ? "core" : group)
                    + "/"
                    + resource
                    + (rule.getResourceNames() == null || rule.getResourceNames().isEmpty()
                        ? ""
                        : " " + rule.getResourceNames()));
          }
        }
      }
    }
    return out;
  }
}
