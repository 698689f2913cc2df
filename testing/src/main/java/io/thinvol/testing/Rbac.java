package io.thinvol.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Who may do what, as the API server's RBAC authorizer decides it: grants of rules to a user,
 * cluster-wide (a ClusterRole bound by a ClusterRoleBinding) or in one namespace (a Role and its
 * RoleBinding). The operator's grants are read from the bundle's ClusterServiceVersion, exactly as
 * OLM installs them.
 */
public final class Rbac {

  /** A user's rules; {@code namespace} null for cluster-wide. */
  public record Grant(String user, String namespace, List<PolicyRule> rules) {}

  private final List<Grant> grants;

  public Rbac(List<Grant> grants) {
    this.grants = List.copyOf(grants);
  }

  /** The user a ServiceAccount's token authenticates as. */
  public static String serviceAccount(String namespace, String name) {
    return "system:serviceaccount:" + namespace + ":" + name;
  }

  /**
   * The grants of a ClusterServiceVersion: its {@code clusterPermissions} cluster-wide and its
   * {@code permissions} in {@code namespace}, each to its ServiceAccount there.
   */
  public static Rbac fromClusterServiceVersion(String csvYaml, String namespace) {
    JsonNode install = Serialization.unmarshal(csvYaml, JsonNode.class).at("/spec/install/spec");
    List<Grant> grants = new ArrayList<>();
    for (JsonNode permission : install.path("clusterPermissions")) {
      grants.add(grant(permission, namespace, null));
    }
    for (JsonNode permission : install.path("permissions")) {
      grants.add(grant(permission, namespace, namespace));
    }
    return new Rbac(grants);
  }

  private static Grant grant(JsonNode permission, String saNamespace, String namespace) {
    return new Grant(
        serviceAccount(saNamespace, permission.path("serviceAccountName").asText()),
        namespace,
        Stream.of(
                Serialization.jsonMapper()
                    .convertValue(permission.path("rules"), PolicyRule[].class))
            .toList());
  }

  /** These grants with {@code verb} on {@code resource} taken out of {@code user}'s rules. */
  Rbac without(String user, String resource, String verb) {
    return new Rbac(
        grants().stream()
            .map(
                g -> {
                  if (!g.user().equals(user)) {
                    return g;
                  }
                  List<PolicyRule> rules =
                      g.rules().stream()
                          .map(
                              r ->
                                  new io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder(r)
                                      .build())
                          .toList();
                  revoke(rules, resource, verb);
                  return new Grant(g.user(), g.namespace(), rules);
                })
            .toList());
  }

  /** Takes {@code verb} out of the rules naming {@code resource}; whether any changed. */
  static boolean revoke(List<PolicyRule> rules, String resource, String verb) {
    boolean changed = false;
    for (PolicyRule rule : rules) {
      if (rule.getResources().contains(resource) && rule.getVerbs().contains(verb)) {
        rule.setVerbs(rule.getVerbs().stream().filter(v -> !v.equals(verb)).toList());
        changed = true;
      }
    }
    return changed;
  }

  public List<Grant> grants() {
    return grants;
  }

  /** Whether the user may make the request. */
  public boolean allows(String user, ApiRequest request) {
    return rulesIn(user, request.namespace()).stream().anyMatch(request::allowedBy);
  }

  /** The user's rules that apply in a namespace (null: at the cluster scope). */
  public List<PolicyRule> rulesIn(String user, String namespace) {
    return grants.stream()
        .filter(g -> g.user().equals(user))
        .filter(g -> g.namespace() == null || g.namespace().equals(namespace))
        .flatMap(g -> g.rules().stream())
        .toList();
  }

  /** The API server's 403 message. */
  public static String forbidden(String user, ApiRequest request) {
    String what =
        request.resource().split("/")[0] + (request.group().isEmpty() ? "" : "." + request.group());
    return what
        + (request.name() == null || request.verb().equals("create")
            ? ""
            : " \"" + request.name() + "\"")
        + " is forbidden: User \""
        + user
        + "\" cannot "
        + request.verb()
        + " resource \""
        + request.resource()
        + "\" in API group \""
        + request.group()
        + "\""
        + (request.namespace() == null
            ? " at the cluster scope"
            : " in the namespace \"" + request.namespace() + "\"");
  }

  /** A Status body as the API server sends it. */
  static String status(int code, String reason, String message, Map<String, Object> details) {
    return Serialization.asJson(
        Map.of(
            "kind",
            "Status",
            "apiVersion",
            "v1",
            "metadata",
            Map.of(),
            "status",
            "Failure",
            "message",
            message,
            "reason",
            reason,
            "details",
            details,
            "code",
            code));
  }

  /**
   * The answer to a SelfSubjectRulesReview of {@code body}: what the user may do in its namespace,
   * as JOSDK's leader election asks before it starts; everything for the admin.
   */
  String rulesReview(String user, boolean admin, String body) {
    ObjectNode review = (ObjectNode) Serialization.unmarshal(body, JsonNode.class);
    String namespace = review.at("/spec/namespace").asText(null);
    List<PolicyRule> rules =
        admin
            ? List.of(
                new PolicyRuleBuilder()
                    .withApiGroups("*")
                    .withResources("*")
                    .withVerbs("*")
                    .build())
            : rulesIn(user, namespace);
    ArrayNode resourceRules = review.putObject("status").putArray("resourceRules");
    for (PolicyRule rule : rules) {
      ObjectNode out = resourceRules.addObject();
      out.set("verbs", Serialization.jsonMapper().valueToTree(rule.getVerbs()));
      out.set("apiGroups", Serialization.jsonMapper().valueToTree(rule.getApiGroups()));
      out.set("resources", Serialization.jsonMapper().valueToTree(rule.getResources()));
      out.set(
          "resourceNames",
          Serialization.jsonMapper()
              .valueToTree(rule.getResourceNames() == null ? List.of() : rule.getResourceNames()));
    }
    ((ObjectNode) review.path("status")).putArray("nonResourceRules");
    ((ObjectNode) review.path("status")).put("incomplete", false);
    return Serialization.asJson(review);
  }
}
