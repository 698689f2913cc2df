package io.thinvol.testing;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * ValidatingAdmissionPolicies (admissionregistration.k8s.io/v1) on CREATE, as the API server's
 * admission chain applies them before the object reaches the store (so before a name's conflict is
 * found): every binding whose {@code validationActions} hold {@code Deny} applies its policy to a
 * request its {@code matchConstraints} (and the binding's {@code matchResources}) cover — resource
 * rules by operation, group, version, resource and name, label selectors by {@code matchLabels} —
 * when every {@code matchConditions} expression holds; a {@code validations} expression that is
 * false (or, with {@code failurePolicy: Fail}, fails to evaluate) refuses the request with the
 * validation's reason (Invalid unless set) and the real server's message. CEL sees {@code object},
 * {@code oldObject} (null), {@code request} (operation, userInfo, namespace, name, kind, resource)
 * and {@code params} (null). Other operations and {@code Warn}/{@code Audit} actions are not
 * modelled.
 */
final class AdmissionPolicies {

  static final String GROUP = "admissionregistration.k8s.io";
  private static final String POLICIES = "/apis/" + GROUP + "/v1/validatingadmissionpolicies";
  private static final String BINDINGS = "/apis/" + GROUP + "/v1/validatingadmissionpolicybindings";

  private AdmissionPolicies() {}

  /**
   * The refusal of a create, if a policy in force denies it.
   *
   * @param store reads a path of the store (a list answers {@code {"items": [...]}}), or null when
   *     nothing is stored there
   * @param version the API version of the request's path
   */
  static Optional<Refusal> create(
      Function<String, JsonNode> store,
      String user,
      List<String> groups,
      ApiRequest request,
      String version,
      JsonNode object,
      boolean dryRun) {
    JsonNode bindings = store.apply(BINDINGS);
    if (bindings == null) {
      return Optional.empty();
    }
    String name = request.name() != null ? request.name() : object.at("/metadata/name").asText();
    Map<String, Object> variables = new HashMap<>();
    variables.put("object", CelRules.plain(object));
    variables.put("oldObject", null);
    variables.put("params", null);
    variables.put("request", requestVariable(user, groups, request, version, name, dryRun));
    for (JsonNode binding : bindings.path("items")) {
      if (!denies(binding)) {
        continue;
      }
      String policyName = binding.at("/spec/policyName").asText();
      JsonNode policy = store.apply(POLICIES + "/" + policyName);
      if (policy == null
          || !matches(policy.at("/spec/matchConstraints"), request, version, name, object)
          || !matches(binding.at("/spec/matchResources"), request, version, name, object)) {
        continue;
      }
      boolean failClosed = !"Ignore".equals(policy.at("/spec/failurePolicy").asText("Fail"));
      if (!conditionsHold(policy.at("/spec/matchConditions"), variables, failClosed)) {
        continue;
      }
      for (JsonNode validation : policy.at("/spec/validations")) {
        String expression = validation.path("expression").asText();
        Optional<Boolean> result = CelRules.evaluate(expression, variables);
        if (result.isEmpty() && !failClosed) {
          continue;
        }
        if (result.orElse(false)) {
          continue;
        }
        String why =
            result.isEmpty()
                ? "expression '" + expression + "' resulted in error"
                : validation.path("message").asText("failed expression: " + expression);
        return Optional.of(
            refusal(
                validation.path("reason").asText("Invalid"),
                request,
                name,
                "ValidatingAdmissionPolicy '"
                    + policyName
                    + "' with binding '"
                    + binding.at("/metadata/name").asText()
                    + "' denied request: "
                    + why));
      }
    }
    return Optional.empty();
  }

  private static boolean denies(JsonNode binding) {
    for (JsonNode action : binding.at("/spec/validationActions")) {
      if (action.asText().equals("Deny")) {
        return true;
      }
    }
    return false;
  }

  /** Resource rules (absent: every resource) and label selectors of a policy or binding. */
  private static boolean matches(
      JsonNode match, ApiRequest request, String version, String name, JsonNode object) {
    if (match.isMissingNode() || match.isNull()) {
      return true;
    }
    if (!labelsMatch(match.path("objectSelector"), object.at("/metadata/labels"))) {
      return false;
    }
    JsonNode rules = match.path("resourceRules");
    if (rules.isMissingNode() || rules.isEmpty()) {
      return true;
    }
    String resource = request.resource();
    for (JsonNode rule : rules) {
      if (listed(rule.path("operations"), "CREATE")
          && listed(rule.path("apiGroups"), request.group())
          && listed(rule.path("apiVersions"), version)
          && listed(rule.path("resources"), resource)
          && (rule.path("resourceNames").isEmpty() || listed(rule.path("resourceNames"), name))) {
        return true;
      }
    }
    return false;
  }

  private static boolean labelsMatch(JsonNode selector, JsonNode labels) {
    JsonNode wanted = selector.path("matchLabels");
    for (var it = wanted.fields(); it.hasNext(); ) {
      var entry = it.next();
      if (!entry.getValue().asText().equals(labels.path(entry.getKey()).asText(null))) {
        return false;
      }
    }
    return true;
  }

  private static boolean listed(JsonNode values, String wanted) {
    for (JsonNode value : values) {
      if (value.asText().equals("*") || value.asText().equals(wanted)) {
        return true;
      }
    }
    return false;
  }

  private static boolean conditionsHold(
      JsonNode conditions, Map<String, Object> variables, boolean failClosed) {
    for (JsonNode condition : conditions) {
      Optional<Boolean> result =
          CelRules.evaluate(condition.path("expression").asText(), variables);
      if (result.isEmpty()) {
        return failClosed; // an error: the policy applies (and denies) unless it fails open
      }
      if (!result.get()) {
        return false;
      }
    }
    return true;
  }

  private static Map<String, Object> requestVariable(
      String user,
      List<String> groups,
      ApiRequest request,
      String version,
      String name,
      boolean dryRun) {
    Map<String, Object> userInfo = new LinkedHashMap<>();
    userInfo.put("username", user);
    userInfo.put("groups", new ArrayList<Object>(groups));
    Map<String, Object> resource = new LinkedHashMap<>();
    resource.put("group", request.group());
    resource.put("version", version);
    resource.put("resource", request.resource());
    Map<String, Object> variable = new LinkedHashMap<>();
    variable.put("operation", "CREATE");
    variable.put("userInfo", userInfo);
    variable.put("namespace", request.namespace() == null ? "" : request.namespace());
    variable.put("name", name);
    variable.put("resource", resource);
    variable.put("dryRun", dryRun);
    return variable;
  }

  /** As the API server words a policy's denial: 403 Forbidden or 422 Invalid (the default). */
  private static Refusal refusal(String reason, ApiRequest request, String name, String message) {
    String resource = request.resource();
    String qualified = request.group().isEmpty() ? resource : resource + "." + request.group();
    boolean forbidden = reason.equals("Forbidden");
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("name", name);
    details.put("group", request.group());
    details.put("kind", resource);
    return new Refusal(
        forbidden ? 403 : 422,
        forbidden ? "Forbidden" : "Invalid",
        qualified
            + " \""
            + name
            + "\" is "
            + (forbidden ? "forbidden" : "invalid")
            + ": "
            + message,
        details);
  }

  /** The store's JSON at a path, or null: a helper for {@link StrictApiServer}. */
  static JsonNode parse(String json) {
    return json == null ? null : Serialization.unmarshal(json, JsonNode.class);
  }
}
