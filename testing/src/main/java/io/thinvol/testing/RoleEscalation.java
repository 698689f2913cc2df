package io.thinvol.testing;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * RBAC's escalation check, as Kubernetes' pkg/registry/rbac decides it: a user may write a role
 * only with rules it holds itself (or {@code escalate} on it), and a binding only to a role whose
 * rules it holds in the binding's scope (or {@code bind} on that role, by name). A {@code bind}
 * granted by {@code resourceNames} covers those roles only.
 */
final class RoleEscalation {

  static final String GROUP = "rbac.authorization.k8s.io";

  /** What the check decided: the {@code bind} it authorised (if any) and the refusal (if any). */
  record Outcome(Optional<ApiRequest> bind, Optional<String> refusal) {}

  private RoleEscalation() {}

  /**
   * @param object a role or binding of group {@value #GROUP} as it would be stored
   * @param stored a role's stored object by its path ({@code clusterroles/x} or {@code
   *     namespaces/ns/roles/x}), or null
   */
  static Outcome check(String user, Rbac rbac, JsonNode object, Function<String, JsonNode> stored) {
    String kind = object.path("kind").asText();
    String namespace = object.at("/metadata/namespace").asText(null);
    String name = object.at("/metadata/name").asText();
    String resource = kind.toLowerCase() + "s";
    if (kind.equals("ClusterRole") || kind.equals("Role")) {
      if (rbac.allows(user, new ApiRequest("escalate", GROUP, resource, namespace, name))) {
        return new Outcome(Optional.empty(), Optional.empty());
      }
      return new Outcome(
          Optional.empty(), notHeld(user, rbac, rules(object), namespace, resource, name));
    }
    if (!kind.equals("ClusterRoleBinding") && !kind.equals("RoleBinding")) {
      return new Outcome(Optional.empty(), Optional.empty());
    }
    String roleKind = object.at("/roleRef/kind").asText();
    String roleName = object.at("/roleRef/name").asText();
    boolean clusterRole = roleKind.equals("ClusterRole");
    ApiRequest bind =
        new ApiRequest("bind", GROUP, clusterRole ? "clusterroles" : "roles", namespace, roleName);
    if (rbac.allows(user, bind)) {
      return new Outcome(Optional.of(bind), Optional.empty());
    }
    JsonNode role =
        stored.apply(
            clusterRole
                ? "clusterroles/" + roleName
                : "namespaces/" + namespace + "/roles/" + roleName);
    if (role == null) {
      return new Outcome(
          Optional.empty(),
          Optional.of(
              forbidden(resource, name)
                  + "user \""
                  + user
                  + "\" cannot bind "
                  + roleKind
                  + " \""
                  + roleName
                  + "\": "
                  + roleKind.toLowerCase()
                  + ".rbac.authorization.k8s.io \""
                  + roleName
                  + "\" not found"));
    }
    return new Outcome(
        Optional.empty(), notHeld(user, rbac, rules(role), namespace, resource, name));
  }

  private static List<PolicyRule> rules(JsonNode role) {
    return List.of(Serialization.jsonMapper().convertValue(role.path("rules"), PolicyRule[].class));
  }

  /** The refusal naming the rules the user does not hold in {@code namespace}, or empty. */
  private static Optional<String> notHeld(
      String user,
      Rbac rbac,
      List<PolicyRule> rules,
      String namespace,
      String resource,
      String name) {
    List<String> missing = new ArrayList<>();
    for (PolicyRule rule : rules) {
      for (ApiRequest request : requests(rule, namespace)) {
        if (!rbac.allows(user, request)) {
          missing.add(
              "{APIGroups:[\""
                  + request.group()
                  + "\"], Resources:[\""
                  + request.resource()
                  + "\"], "
                  + (request.name() == null ? "" : "ResourceNames:[\"" + request.name() + "\"], ")
                  + "Verbs:[\""
                  + request.verb()
                  + "\"]}");
        }
      }
    }
    if (missing.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        forbidden(resource, name)
            + "user \""
            + user
            + "\" is attempting to grant RBAC permissions not currently held:\n"
            + String.join("\n", missing));
  }

  /** Every request a rule allows, one per group, resource, verb and name. */
  private static List<ApiRequest> requests(PolicyRule rule, String namespace) {
    List<String> names =
        rule.getResourceNames() == null || rule.getResourceNames().isEmpty()
            ? Collections.singletonList(null)
            : rule.getResourceNames();
    List<ApiRequest> requests = new ArrayList<>();
    for (String group : orEmpty(rule.getApiGroups())) {
      for (String resource : orEmpty(rule.getResources())) {
        for (String verb : orEmpty(rule.getVerbs())) {
          for (String name : names) {
            requests.add(new ApiRequest(verb, group, resource, namespace, name));
          }
        }
      }
    }
    return requests;
  }

  private static List<String> orEmpty(List<String> values) {
    return values == null ? List.of() : values;
  }

  private static String forbidden(String resource, String name) {
    return resource + "." + GROUP + " \"" + name + "\" is forbidden: ";
  }
}
