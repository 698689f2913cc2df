package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.authorization.v1.ResourceRule;
import io.fabric8.kubernetes.api.model.authorization.v1.ResourceRuleBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectRulesReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectRulesReviewBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.thinvol.operator.model.OperatorRbac;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The operator with leader election on, as it runs in a cluster: it checks its Lease rights,
 * creates the Lease and renews it (fabric8's LeaseLock renews with a JSON merge PATCH). Every
 * request it makes over two renewals must be allowed by the RBAC the bundle and chart grant ({@link
 * OperatorRbac}); a forbidden renewal is what made the operator stop leading and exit.
 */
@EnableKubernetesMockClient(crud = true)
class LeaderElectionRbacTest {

  private static final String NAMESPACE = MockClusterTest.NAMESPACE;

  /**
   * Allowed to every authenticated user by the default ClusterRole {@code system:basic-user}; JOSDK
   * asks it before electing.
   */
  private static final ApiRequest RULES_REVIEW =
      new ApiRequest("authorization.k8s.io", "selfsubjectrulesreviews", null, "create");

  KubernetesClient client;
  KubernetesMockServer server;

  @Test
  void everyLeaseRequestOverTwoRenewalsIsGranted() throws Exception {
    answerRulesReviewFromTheModel(server);
    List<ApiRequest> requests = new ArrayList<>();
    try (KubernetesClient operatorClient =
            new KubernetesClientBuilder()
                .withConfig(
                    new ConfigBuilder(client.getConfiguration())
                        .withNamespace(NAMESPACE)
                        .withUserAgent(MockClusterTest.OPERATOR_USER_AGENT)
                        .build())
                .build();
        OperatorRunner runner =
            OperatorRunner.start(
                operatorClient,
                MockClusterTest.SETTINGS,
                true,
                -1,
                MockClusterTest.noDriverCalls(),
                MockClusterTest.withoutServerSideApply())) {
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (renewals(requests) < 2 && System.nanoTime() < deadline) {
        RecordedRequest request = server.takeRequest(100, TimeUnit.MILLISECONDS);
        if (request != null
            && MockClusterTest.OPERATOR_USER_AGENT.equals(request.getHeader("User-Agent"))) {
          ApiRequest.of(request).ifPresent(requests::add);
        }
      }
    }
    assertThat(renewals(requests))
        .as("lease renewals seen in %s", requests)
        .isGreaterThanOrEqualTo(2);
    assertThat(requests)
        .as("leases created by the operator")
        .anyMatch(r -> isLease(r) && r.verb().equals("create"));
    List<PolicyRule> cluster = OperatorRbac.clusterRules(false);
    List<PolicyRule> own = OperatorRbac.namespaceRules();
    assertThat(requests)
        .as("requests the RBAC of the bundle and chart forbids")
        .filteredOn(r -> !r.equals(RULES_REVIEW))
        .filteredOn(
            r -> !r.allowedBy(cluster) && !(NAMESPACE.equals(r.namespace()) && r.allowedBy(own)))
        .isEmpty();
  }

  /** The API server answers a rules review with the rules the operator's role grants. */
  static void answerRulesReviewFromTheModel(KubernetesMockServer server) {
    List<ResourceRule> rules =
        OperatorRbac.namespaceRules().stream()
            .map(
                r ->
                    new ResourceRuleBuilder()
                        .withApiGroups(r.getApiGroups())
                        .withResources(r.getResources())
                        .withVerbs(r.getVerbs())
                        .build())
            .toList();
    SelfSubjectRulesReview review =
        new SelfSubjectRulesReviewBuilder()
            .withNewSpec()
            .withNamespace(NAMESPACE)
            .endSpec()
            .withNewStatus()
            .withIncomplete(false)
            .withResourceRules(rules)
            .endStatus()
            .build();
    server
        .expect()
        .post()
        .withPath("/apis/authorization.k8s.io/v1/selfsubjectrulesreviews")
        .andReturn(201, review)
        .always();
  }

  private static long renewals(List<ApiRequest> requests) {
    return requests.stream().filter(r -> isLease(r) && r.verb().equals("patch")).count();
  }

  private static boolean isLease(ApiRequest request) {
    return request.group().equals("coordination.k8s.io") && request.resource().equals("leases");
  }
}
