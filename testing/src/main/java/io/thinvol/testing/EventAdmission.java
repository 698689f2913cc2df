package io.thinvol.testing;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The API server's validation of core/v1 and events.k8s.io/v1 Events (Kubernetes'
 * pkg/apis/core/validation/events.go): where an Event about an object may be recorded, and the
 * fields it needs.
 */
final class EventAdmission {

  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  private EventAdmission() {}

  /** The problems, each as {@code field: Invalid value: ...}; empty when the Event is valid. */
  static List<String> problems(JsonNode event) {
    boolean eventsApi = event.path("apiVersion").asText().startsWith("events.k8s.io/");
    String namespace = event.at("/metadata/namespace").asText("");
    JsonNode regarding = event.path(eventsApi ? "regarding" : "involvedObject");
    String field = eventsApi ? "regarding.namespace" : "involvedObject.namespace";
    String objectNamespace = regarding.path("namespace").asText("");
    boolean hasEventTime = !event.path("eventTime").asText("").isEmpty();
    List<String> problems = new ArrayList<>();
    String mismatch =
        field + ": Invalid value: \"" + objectNamespace + "\": does not match event.namespace";
    if (!hasEventTime) {
      // An Event about a cluster-scoped object lives in "default" (or has no namespace).
      if (objectNamespace.isEmpty()
          ? !namespace.isEmpty() && !namespace.equals("default")
          : !namespace.equals(objectNamespace)) {
        problems.add(mismatch);
      }
    } else {
      if (objectNamespace.isEmpty()
          && !namespace.equals("default")
          && !namespace.equals("kube-system")) {
        problems.add(mismatch);
      }
      // core/v1 names the reporting controller's field reportingComponent
      required(event, eventsApi ? "reportingController" : "reportingComponent", problems);
      required(event, "reportingInstance", problems);
      required(event, "action", problems);
      required(event, "reason", problems);
      if (event.path(eventsApi ? "note" : "message").asText("").length() > 1024) {
        problems.add("message: Invalid value: \"\": can have at most 1024 characters");
      }
    }
    if (!DNS_SUBDOMAIN.matcher(namespace).matches()) {
      problems.add(
          "namespace: Invalid value: \"" + namespace + "\": a lowercase RFC 1123 subdomain");
    }
    return problems;
  }

  private static void required(JsonNode event, String field, List<String> problems) {
    if (event.path(field).asText("").isEmpty()) {
      problems.add(field + ": Required value");
    }
  }
}
