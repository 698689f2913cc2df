package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.thinvol.api.kube.Conditions;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.StatusModel;
import io.thinvol.testing.StrictApiServer;
import io.thinvol.testing.TestCluster;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A dependent the API server refuses (here: an install whose RBAC lacks {@code create} on
 * NetworkPolicies, as one from an older or mis-set chart would) shows on the StorageBackend as
 * Degraded with the reason and the server's message, and as one Warning Event however often the
 * reconcile is retried.
 */
class ReconcileFailureTest extends MockClusterTest {

  @Override
  TestCluster startCluster() {
    TestCluster cluster = TestCluster.start();
    cluster.revokeFromOperator("networkpolicies", "create");
    return cluster;
  }

  /** The refusals this test provokes are expected; any other still fails it. */
  @Override
  List<StrictApiServer.Decision> refusedOperatorRequests() {
    return super.refusedOperatorRequests().stream().filter(d -> !refusedPolicy(d)).toList();
  }

  /** Refused for want of create (a create, or a server-side apply that would create). */
  private static boolean refusedPolicy(StrictApiServer.Decision d) {
    return d.code() == 403
        && d.request().resource().equals("networkpolicies")
        && d.message().contains("cannot create resource \"networkpolicies\"");
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
