package io.thinvol.testing;

import io.fabric8.mockwebserver.http.MockResponse;
import java.util.List;
import java.util.Map;

/** A request the strict API server refuses, with the real server's code, reason and message. */
final class Refusal extends RuntimeException {

  private static final long serialVersionUID = 1L;

  final int code;
  final String reason;
  final transient Map<String, Object> details;

  Refusal(int code, String reason, String message, Map<String, Object> details) {
    super(message);
    this.code = code;
    this.reason = reason;
    this.details = details;
  }

  static Refusal forbidden(String message, ApiRequest request) {
    return new Refusal(
        403,
        "Forbidden",
        message,
        Map.of(
            "name",
            request.name() == null ? "" : request.name(),
            "group",
            request.group(),
            "kind",
            request.resource().split("/")[0]));
  }

  /** 404 for an object made in a namespace that does not exist (NamespaceLifecycle). */
  static Refusal noNamespace(String namespace) {
    return new Refusal(
        404,
        "NotFound",
        "namespaces \"" + namespace + "\" not found",
        Map.of("name", namespace, "kind", "namespaces"));
  }

  /**
   * 422: {@code <Kind>[.group] "<name>" is invalid: <field>: <problem>}, the causes listed as the
   * API server lists them.
   */
  static Refusal invalid(String kind, String group, String name, List<String> problems) {
    String qualified = group.isEmpty() ? kind : kind + "." + group;
    String joined =
        problems.size() == 1 ? problems.get(0) : "[" + String.join(", ", problems) + "]";
    return new Refusal(
        422,
        "Invalid",
        qualified + " \"" + name + "\" is invalid: " + joined,
        Map.of(
            "name",
            name,
            "group",
            group,
            "kind",
            kind,
            "causes",
            problems.stream()
                .map(
                    p -> {
                      int colon = p.indexOf(": ");
                      return Map.of(
                          "reason",
                          "FieldValueInvalid",
                          "field",
                          colon < 0 ? "" : p.substring(0, colon),
                          "message",
                          colon < 0 ? p : p.substring(colon + 2));
                    })
                .toList()));
  }

  MockResponse response() {
    return new MockResponse()
        .setResponseCode(code)
        .setHeader("Content-Type", "application/json")
        .setBody(Rbac.status(code, reason, getMessage(), details));
  }
}
