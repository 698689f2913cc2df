package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.thinvol.testing.ApiRequest;
import io.thinvol.testing.StrictApiServer;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The operator with leader election on, as it runs in a cluster (every {@link MockClusterTest}
 * does): it checks its Lease rights, creates the Lease and renews it (fabric8's LeaseLock renews
 * with a JSON merge PATCH) as its ServiceAccount with the bundle's RBAC. A forbidden renewal is
 * what made the operator stop leading and exit; the fixture fails any test on a refused request or
 * a lost leadership.
 */
class LeaderElectionRbacTest extends MockClusterTest {

  @Test
  void everyLeaseRequestOverTwoRenewalsIsGranted() {
    await("two lease renewals", () -> leases("patch").size() >= 2);
    assertThat(leases("create")).as("the Lease created by the operator").isNotEmpty();
    assertThat(leading).as("the operator leads").isTrue();
    assertThat(refusedOperatorRequests()).isEmpty();
  }

  private List<ApiRequest> leases(String verb) {
    return operatorDecisions().stream()
        .map(StrictApiServer.Decision::request)
        .filter(r -> r.group().equals("coordination.k8s.io") && r.resource().equals("leases"))
        .filter(r -> r.verb().equals(verb))
        .toList();
  }
}
