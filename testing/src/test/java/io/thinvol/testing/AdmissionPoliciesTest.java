package io.thinvol.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBindingBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A ValidatingAdmissionPolicy bound with {@code Deny} refuses the creates it matches, before the
 * store looks at the name (so also a dry run of a name that exists), as the API server's admission
 * chain does; a dry run is never stored.
 */
class AdmissionPoliciesTest {

  static final String USER = Rbac.serviceAccount("ops", "robot");

  StrictCluster cluster;
  KubernetesClient robot;

  @BeforeEach
  void start() {
    cluster =
        StrictCluster.start(
            new Rbac(
                List.of(
                    new Rbac.Grant(
                        USER,
                        null,
                        List.of(
                            new PolicyRuleBuilder()
                                .withApiGroups("")
                                .withResources("configmaps")
                                .withVerbs("get", "create")
                                .build())))));
    cluster.namespace("apps");
    robot = cluster.as(USER, "apps");
    cluster
        .admin()
        .resource(
            new ValidatingAdmissionPolicyBuilder()
                .withNewMetadata()
                .withName("keep-name")
                .endMetadata()
                .withNewSpec()
                .withFailurePolicy("Fail")
                .withNewMatchConstraints()
                .addNewResourceRule()
                .withApiGroups("")
                .withApiVersions("v1")
                .withOperations("CREATE")
                .withResources("configmaps")
                .endResourceRule()
                .endMatchConstraints()
                .addNewMatchCondition()
                .withName("the-name")
                .withExpression("request.namespace == 'apps' && object.metadata.name == 'kept'")
                .endMatchCondition()
                .addNewValidation()
                .withExpression(
                    "request.userInfo.username == '"
                        + USER
                        + "' && has(object.metadata.annotations) && 'mark' in"
                        + " object.metadata.annotations")
                .withReason("Forbidden")
                .withMessage("only the robot, marked")
                .endValidation()
                .endSpec()
                .build())
        .create();
  }

  @AfterEach
  void stop() {
    robot.close();
    cluster.close();
  }

  private static ConfigMap map(String name, Map<String, String> annotations) {
    return new ConfigMapBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("apps")
        .withAnnotations(annotations)
        .endMetadata()
        .build();
  }

  @Test
  void aBoundPolicyDeniesTheCreatesItMatches() {
    // Not bound yet: not in force.
    cluster.admin().resource(map("kept", Map.of())).create();
    cluster.admin().configMaps().inNamespace("apps").withName("kept").delete();
    cluster
        .admin()
        .resource(
            new ValidatingAdmissionPolicyBindingBuilder()
                .withNewMetadata()
                .withName("keep-name")
                .endMetadata()
                .withNewSpec()
                .withPolicyName("keep-name")
                .withValidationActions("Deny")
                .endSpec()
                .build())
        .create();

    String denied =
        "configmaps \"kept\" is forbidden: ValidatingAdmissionPolicy 'keep-name' with binding"
            + " 'keep-name' denied request: only the robot, marked";
    assertThatThrownBy(() -> cluster.admin().resource(map("kept", Map.of("mark", "x"))).create())
        .isInstanceOfSatisfying(
            KubernetesClientException.class,
            e -> {
              assertThat(e.getCode()).isEqualTo(403);
              assertThat(e.getStatus().getMessage()).isEqualTo(denied);
            });
    assertThatThrownBy(() -> robot.resource(map("kept", Map.of())).create())
        .isInstanceOfSatisfying(
            KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(403));
    robot.resource(map("other", Map.of())).create();
    ConfigMap kept = robot.resource(map("kept", Map.of("mark", "x"))).create();
    assertThat(kept.getMetadata().getUid()).isNotNull();

    // A dry run meets the policy before the name's conflict, and is never stored.
    assertThatThrownBy(() -> robot.resource(map("kept", Map.of())).dryRun().create())
        .isInstanceOfSatisfying(
            KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(403));
    assertThatThrownBy(() -> robot.resource(map("kept", Map.of("mark", "y"))).dryRun().create())
        .isInstanceOfSatisfying(
            KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(409));
    robot.resource(map("dry", Map.of())).dryRun().create();
    assertThat(robot.configMaps().inNamespace("apps").withName("dry").get()).isNull();
    assertThat(cluster.decisions())
        .filteredOn(d -> d.code() == 403)
        .extracting(StrictApiServer.Decision::message)
        .allMatch(m -> m.contains("ValidatingAdmissionPolicy 'keep-name'"));
  }
}
