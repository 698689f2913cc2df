package io.thinvol.operator;

import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.util.List;
import java.util.Optional;

/**
 * A recorded API request as RBAC sees it: API group, resource (with subresource), namespace and
 * verb.
 */
record ApiRequest(String group, String resource, String namespace, String verb) {

  /** Empty for requests RBAC does not govern this way (discovery, /version). */
  static Optional<ApiRequest> of(RecordedRequest request) {
    String full = request.getPath();
    int query = full.indexOf('?');
    String path = query < 0 ? full : full.substring(0, query);
    String params = query < 0 ? "" : full.substring(query + 1);
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
    if (tail.size() >= 2 && tail.get(0).equals("namespaces") && tail.size() != 2) {
      namespace = tail.get(1);
      tail = tail.subList(2, tail.size());
    }
    String resource = tail.get(0);
    boolean named = tail.size() >= 2;
    if (resource.equals("namespaces") && named) {
      namespace = tail.get(1); // RBAC sees a Namespace object as inside itself
    }
    if (tail.size() >= 3) {
      resource = resource + "/" + tail.get(2);
    }
    String verb =
        switch (request.getMethod()) {
          case "GET" -> named ? "get" : params.contains("watch=true") ? "watch" : "list";
          case "POST" -> "create";
          case "PUT" -> "update";
          case "PATCH" -> "patch";
          case "DELETE" -> named ? "delete" : "deletecollection";
          default -> request.getMethod().toLowerCase();
        };
    return Optional.of(new ApiRequest(group, resource, namespace, verb));
  }

  boolean allowedBy(List<PolicyRule> rules) {
    return rules.stream()
        .anyMatch(
            r ->
                r.getApiGroups().contains(group)
                    && r.getResources().contains(resource)
                    && r.getVerbs().contains(verb)
                    && (r.getResourceNames() == null || r.getResourceNames().isEmpty()));
  }

  @Override
  public String toString() {
    return verb
        + " "
        + (group.isEmpty() ? "core" : group)
        + "/"
        + resource
        + (namespace == null ? "" : " in " + namespace);
  }
}
