package io.thinvol.testing;

import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * An API request as the API server's authorizer sees it: verb, API group, resource (with
 * subresource), namespace and name.
 *
 * @param namespace null for a cluster-scoped request
 * @param name null for a collection
 */
public record ApiRequest(
    String verb, String group, String resource, String namespace, String name) {

  /**
   * Empty for non-resource requests (discovery, /version), which every authenticated user may make.
   */
  public static Optional<ApiRequest> of(String method, String pathAndQuery) {
    int mark = pathAndQuery.indexOf('?');
    String path = mark < 0 ? pathAndQuery : pathAndQuery.substring(0, mark);
    String query = mark < 0 ? "" : pathAndQuery.substring(mark + 1);
    List<String> parts = List.of(path.replaceAll("^/+", "").split("/"));
    String group;
    int rest;
    if (parts.get(0).equals("api") && parts.size() >= 3) {
      group = "";
      rest = 2;
    } else if (parts.get(0).equals("apis") && parts.size() >= 4) {
      group = parts.get(1);
      rest = 3;
    } else {
      return Optional.empty();
    }
    List<String> tail = parts.subList(rest, parts.size());
    String namespace = null;
    if (tail.size() >= 3 && tail.get(0).equals("namespaces")) {
      namespace = tail.get(1);
      tail = tail.subList(2, tail.size());
    }
    String resource = tail.get(0);
    String name = tail.size() >= 2 ? tail.get(1) : null;
    if (resource.equals("namespaces") && name != null) {
      namespace = name; // RBAC sees a Namespace object as inside itself
    }
    if (tail.size() >= 3) {
      resource = resource + "/" + tail.get(2);
    }
    boolean watch = parameters(query).getOrDefault("watch", "").equals("true");
    String verb =
        switch (method) {
          case "GET" -> watch ? "watch" : name != null ? "get" : "list";
          case "POST" -> "create";
          case "PUT" -> "update";
          case "PATCH" -> "patch";
          case "DELETE" -> name != null ? "delete" : "deletecollection";
          default -> method.toLowerCase();
        };
    if (name == null && (verb.equals("list") || verb.equals("watch"))) {
      // As the API server's request info: a list or watch of one name is authorised as that name.
      name = exactName(parameters(query).get("fieldSelector"));
    }
    return Optional.of(new ApiRequest(verb, group, resource, namespace, name));
  }

  /** The name a field selector requires ({@code metadata.name=x} among its terms), or null. */
  private static String exactName(String fieldSelector) {
    if (fieldSelector == null) {
      return null;
    }
    for (String term : fieldSelector.split(",")) {
      String[] pair = term.split("==?", 2);
      if (pair.length == 2 && pair[0].equals("metadata.name") && !pair[1].isEmpty()) {
        return pair[1];
      }
    }
    return null;
  }

  /** The decoded query parameters. */
  public static Map<String, String> parameters(String query) {
    Map<String, String> parameters = new LinkedHashMap<>();
    for (String pair : query.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String key = eq < 0 ? pair : pair.substring(0, eq);
      String value = eq < 0 ? "" : pair.substring(eq + 1);
      parameters.put(
          URLDecoder.decode(key, StandardCharsets.UTF_8),
          URLDecoder.decode(value, StandardCharsets.UTF_8));
    }
    return parameters;
  }

  /** Whether a rule covers this request, resource names included. */
  public boolean allowedBy(PolicyRule rule) {
    return matches(rule.getApiGroups(), group)
        && matches(rule.getResources(), resource)
        && matches(rule.getVerbs(), verb)
        && (rule.getResourceNames() == null
            || rule.getResourceNames().isEmpty()
            || (name != null && rule.getResourceNames().contains(name)));
  }

  private static boolean matches(List<String> granted, String wanted) {
    return granted != null && (granted.contains(wanted) || granted.contains("*"));
  }

  /** As RBAC's "nothing wider than needed" check names it: {@code verb group/resource}. */
  public String permission() {
    return verb + " " + (group.isEmpty() ? "core" : group) + "/" + resource;
  }

  @Override
  public String toString() {
    return permission()
        + (name == null ? "" : " " + name)
        + (namespace == null ? "" : " in " + namespace);
  }
}
