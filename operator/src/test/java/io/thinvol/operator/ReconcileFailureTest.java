package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.thinvol.api.kube.Conditions;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.StatusModel;
import io.thinvol.testing.Rbac;
import io.thinvol.testing.RepoFiles;
import io.thinvol.testing.StrictApiServer;
import io.thinvol.testing.StrictCluster;
import io.thinvol.testing.TestCluster;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A dependent the API server refuses (here: an install whose RBAC lacks {@code create} on
 * NetworkPolicies, as one from an older or mis-set chart would) shows on the StorageBackend as
 * Degraded with the reason and the server's message, and as one Warning Event however often the
 * reconcile is retried. Mock-only: the grants are cut from the bundle's.
 */
class ReconcileFailureTest extends MockClusterTest {

  @Override
  TestCluster startCluster() {
    assumeTrue(
        !"real".equals(System.getProperty("thinvol.cluster")),
        "mock only: the test cuts a grant out of the bundle's RBAC");
    Rbac bundle = Rbac.fromClusterServiceVersion(RepoFiles.clusterServiceVersion(), NAMESPACE);
    StrictCluster cluster =
        StrictCluster.start(
            new Rbac(
                bundle.grants().stream()
                    .map(
                        g ->
                            new Rbac.Grant(
                                g.user(),
                                g.namespace(),
                                g.rules().stream()
                                    .map(ReconcileFailureTest::withoutCreate)
                                    .toList()))
                    .toList()));
    cluster.installCrds();
    return cluster;
  }

  private static PolicyRule withoutCreate(PolicyRule rule) {
    if (!rule.getResources().contains("networkpolicies")) {
      return rule;
    }
    return new PolicyRuleBuilder(rule)
        .withVerbs(rule.getVerbs().stream().filter(v -> !v.equals("create")).toList())
        .build();
  }

  /** The refusals this test provokes are expected; any other still fails it. */
  @Override
  List<StrictApiServer.Decision> refusedOperatorRequests() {
    return super.refusedOperatorRequests().stream().filter(d -> !refusedPolicy(d)).toList();
  }

  private static boolean refusedPolicy(StrictApiServer.Decision d) {
    return d.code() == 403
        && d.request().resource().equals("networkpolicies")
        && d.request().verb().equals("create");
  }

  @Test
  void aRefusedDependentIsDegradedWithTheReasonAndOneWarning() {
    apply("metadata:\n  name: cut\n");
    Condition degraded =
        await(
            "Degraded=True",
            () -> {
              StorageBackend now = client.resources(StorageBackend.class).withName("cut").get();
              return now.getStatus() == null
                  ? null
                  : Conditions.find(now.getStatus().getConditions(), StatusModel.DEGRADED)
                      .filter(c -> "True".equals(c.getStatus()))
                      .orElse(null);
            });
    assertThat(degraded.getReason()).isEqualTo("Forbidden");
    assertThat(degraded.getMessage())
        .contains("network-policy")
        .contains("cannot create resource \"networkpolicies\"")
        .contains("RBAC");

    await(
        "a retry",
        () ->
            operatorDecisions().stream().filter(ReconcileFailureTest::refusedPolicy).count() >= 2);
    assertThat(eventReasons("cut")).containsOnlyOnce("Degraded");
  }
}
