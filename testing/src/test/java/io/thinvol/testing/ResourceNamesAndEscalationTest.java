package io.thinvol.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * RBAC as a real API server applies {@code resourceNames} and the escalation check: a named rule
 * allows get, update, patch and delete of those names only, list and watch only with a matching
 * {@code metadata.name} field selector, and never create or deletecollection; a role or binding can
 * be written only with rules the writer holds, or {@code bind} on the role by name.
 */
class ResourceNamesAndEscalationTest {

  static final String USER = Rbac.serviceAccount("ops", "robot");

  private static final String[] ALL_VERBS = {
    "get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"
  };

  /** Every verb on the Secret "mine"; roles and bindings; bind on the ClusterRole "bindable". */
  static final Rbac RBAC =
      new Rbac(
          List.of(
              new Rbac.Grant(
                  USER,
                  null,
                  List.of(
                      rule("rbac.authorization.k8s.io", "clusterrolebindings", "create", "update"),
                      rule("rbac.authorization.k8s.io", "clusterroles", "create"),
                      rule("", "configmaps", "get", "list"),
                      new PolicyRuleBuilder(
                              rule("rbac.authorization.k8s.io", "clusterroles", "bind"))
                          .withResourceNames("bindable")
                          .build())),
              new Rbac.Grant(
                  USER,
                  "ops",
                  List.of(
                      new PolicyRuleBuilder(rule("", "secrets", ALL_VERBS))
                          .withResourceNames("mine")
                          .build()))));

  StrictCluster cluster;
  KubernetesClient robot;

  @BeforeEach
  void start() {
    cluster = StrictCluster.start(RBAC);
    cluster.namespace("ops");
    robot = cluster.as(USER, "ops");
    cluster.admin().secrets().inNamespace("ops").resource(secret("mine")).create();
    cluster.admin().secrets().inNamespace("ops").resource(secret("other")).create();
  }

  @AfterEach
  void stop() {
    robot.close();
    cluster.close();
  }

  @Test
  void aNamedRuleAllowsItsNamesOnly() throws Exception {
    Secret mine = robot.secrets().withName("mine").get();
    robot.secrets().resource(withLabel(mine, "updated")).update();
    robot.secrets().withName("mine").edit(s -> withLabel(s, "edited"));
    robot
        .secrets()
        .withName("mine")
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\":{\"labels\":{\"b\":\"c\"}}}");
    assertThat(robot.secrets().withField("metadata.name", "mine").list().getItems())
        .extracting(s -> s.getMetadata().getName())
        .containsExactly("mine");

    forbidden(() -> robot.secrets().withName("other").get(), "get", "\"other\" ");
    // As raw requests: fabric8's update and patch read the object first, which would be refused
    // as a get.
    assertThat(send("PUT", "application/json", Serialization.asJson(secret("other"))))
        .isEqualTo(403 + " " + message("update", "\"other\" "));
    assertThat(send("PATCH", "application/merge-patch+json", "{}"))
        .isEqualTo(403 + " " + message("patch", "\"other\" "));
    forbidden(() -> robot.secrets().withName("other").delete(), "delete", "\"other\" ");
    forbidden(() -> robot.secrets().list(), "list", "");
    forbidden(
        () -> robot.secrets().withField("metadata.name", "other").list(), "list", "\"other\" ");
    forbidden(() -> robot.secrets().withLabel("a", "b").delete(), "deletecollection", "");
    forbidden(() -> robot.secrets().resource(secret("new")).create(), "create", "");
    robot.secrets().withName("mine").delete();
    forbidden(
        () -> robot.secrets().resource(secret("mine")).create(),
        "create",
        "" /* a create has no name for RBAC to match */);
  }

  @Test
  void aNamedRuleWatchesItsNameOnly() {
    try (Watch watch = robot.secrets().withName("mine").watch(new Ignoring())) {
      assertThat(watch).isNotNull();
    }
    assertThatThrownBy(() -> robot.secrets().watch(new Ignoring()))
        .isInstanceOfSatisfying(
            KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(403));
    assertThat(cluster.strict().orElseThrow().decisions())
        .extracting(
            d ->
                d.request().verb()
                    + " "
                    + d.request().name()
                    + (d.code() == 403 ? " refused" : " allowed"))
        .containsExactly("watch mine allowed", "watch null refused");
  }

  @Test
  void aBindingNeedsTheRolesRulesOrBindOnItByName() {
    cluster.admin().resource(role("bindable", rule("", "secrets", "delete"))).create();
    cluster.admin().resource(role("held", rule("", "configmaps", "get"))).create();
    cluster.admin().resource(role("mightier", rule("", "secrets", "delete"))).create();

    robot.resource(binding("to-bindable", "bindable")).create();
    robot.resource(binding("to-held", "held")).create();
    assertThatThrownBy(() -> robot.resource(binding("to-mightier", "mightier")).create())
        .isInstanceOfSatisfying(
            KubernetesClientException.class,
            e -> {
              assertThat(e.getCode()).isEqualTo(403);
              assertThat(e.getStatus().getMessage())
                  .startsWith(
                      "clusterrolebindings.rbac.authorization.k8s.io \"to-mightier\" is forbidden:")
                  .contains("attempting to grant RBAC permissions not currently held")
                  .contains("Resources:[\"secrets\"]");
            });
    assertThatThrownBy(() -> robot.resource(binding("to-missing", "missing")).create())
        .isInstanceOfSatisfying(
            KubernetesClientException.class,
            e -> assertThat(e.getStatus().getMessage()).endsWith("\"missing\" not found"));
    assertThat(cluster.strict().orElseThrow().decisions())
        .as("the bind the check authorised, by name")
        .filteredOn(d -> d.request().verb().equals("bind"))
        .extracting(d -> d.request().name())
        .containsExactly("bindable");
  }

  @Test
  void aRoleNeedsTheRulesItGrants() {
    robot.resource(role("reader", rule("", "configmaps", "get", "list"))).create();
    assertThatThrownBy(
            () -> robot.resource(role("writer", rule("", "configmaps", "delete"))).create())
        .isInstanceOfSatisfying(
            KubernetesClientException.class,
            e ->
                assertThat(e.getStatus().getMessage())
                    .contains("Verbs:[\"delete\"]")
                    .doesNotContain("Verbs:[\"get\"]"));
    assertThatThrownBy(
            () ->
                robot
                    .resource(
                        role(
                            "named-secret",
                            new PolicyRuleBuilder(rule("", "secrets", "get"))
                                .withResourceNames("mine")
                                .build()))
                    .create())
        .as("the robot holds get on Secret mine only in its namespace, not cluster-wide")
        .isInstanceOf(KubernetesClientException.class);
  }

  private void forbidden(Runnable request, String verb, String quotedName) {
    assertThatThrownBy(request::run)
        .isInstanceOfSatisfying(
            KubernetesClientException.class,
            e -> {
              assertThat(e.getCode()).isEqualTo(403);
              assertThat(e.getStatus().getMessage()).isEqualTo(message(verb, quotedName));
            });
  }

  private static String message(String verb, String quotedName) {
    return "secrets "
        + quotedName
        + "is forbidden: User \""
        + USER
        + "\" cannot "
        + verb
        + " resource \"secrets\" in API group \"\" in the namespace \"ops\"";
  }

  /** The robot's request on the Secret "other": its code and the Status message. */
  private String send(String method, String contentType, String body) throws Exception {
    HttpClient http = robot.getHttpClient();
    HttpRequest request =
        http.newHttpRequestBuilder()
            .uri(
                robot.getMasterUrl().toString().replaceAll("/$", "")
                    + "/api/v1/namespaces/ops/secrets/other")
            .method(method, contentType, body)
            .build();
    HttpResponse<String> response = http.sendAsync(request, String.class).get();
    return response.code()
        + " "
        + Serialization.unmarshal(response.body(), Status.class).getMessage();
  }

  private static PolicyRule rule(String group, String resource, String... verbs) {
    return new PolicyRuleBuilder()
        .withApiGroups(group)
        .withResources(resource)
        .withVerbs(verbs)
        .build();
  }

  private static ClusterRole role(String name, PolicyRule rule) {
    return new ClusterRoleBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withRules(rule)
        .build();
  }

  private static ClusterRoleBinding binding(String name, String role) {
    return new ClusterRoleBindingBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", role)
        .addNewSubject()
        .withKind("ServiceAccount")
        .withName("someone")
        .withNamespace("ops")
        .endSubject()
        .build();
  }

  private static Secret secret(String name) {
    return new SecretBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("ops")
        .endMetadata()
        .withStringData(Map.of("k", "v"))
        .build();
  }

  private static Secret withLabel(Secret secret, String value) {
    secret.getMetadata().setLabels(Map.of("a", value));
    return secret;
  }

  private static final class Ignoring implements Watcher<Secret> {
    @Override
    public void eventReceived(Action action, Secret resource) {}

    @Override
    public void onClose(WatcherException cause) {}
  }
}
