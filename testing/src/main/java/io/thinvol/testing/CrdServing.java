package io.thinvol.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.StreamSupport;

/**
 * Which custom resources the server serves, as apiextensions-apiserver decides: a CRD's names are
 * accepted unless another CRD of its group uses one of them (its naming controller), a CRD whose
 * names are accepted is Established, and only an Established CRD's objects are served and listed in
 * discovery ({@code /apis}, {@code /apis/<group>/<version>}); any other request of a group that is
 * not built in answers 404. Conditions are written with the CRD (the real controllers take
 * milliseconds more); a CRD refused for a conflict is accepted once the conflicting one is deleted.
 */
final class CrdServing {

  /** The built-in API groups of Kubernetes 1.36 with their preferred versions. */
  static final Map<String, String> BUILT_IN_GROUPS =
      new TreeMap<>(
          Map.ofEntries(
              Map.entry("apps", "v1"),
              Map.entry("batch", "v1"),
              Map.entry("autoscaling", "v2"),
              Map.entry("policy", "v1"),
              Map.entry("rbac.authorization.k8s.io", "v1"),
              Map.entry("storage.k8s.io", "v1"),
              Map.entry("networking.k8s.io", "v1"),
              Map.entry("coordination.k8s.io", "v1"),
              Map.entry("events.k8s.io", "v1"),
              Map.entry("authorization.k8s.io", "v1"),
              Map.entry("authentication.k8s.io", "v1"),
              Map.entry("apiextensions.k8s.io", "v1"),
              Map.entry("admissionregistration.k8s.io", "v1"),
              Map.entry("scheduling.k8s.io", "v1"),
              Map.entry("node.k8s.io", "v1"),
              Map.entry("discovery.k8s.io", "v1"),
              Map.entry("certificates.k8s.io", "v1"),
              Map.entry("flowcontrol.apiserver.k8s.io", "v1"),
              Map.entry("apiregistration.k8s.io", "v1"),
              Map.entry("resource.k8s.io", "v1")));

  private static final List<String> NAME_FIELDS = List.of("singular", "kind", "listKind");
  private static final String APPROVAL = "api-approved.kubernetes.io";

  /** Stored CRDs by name, as last admitted. */
  private final Map<String, JsonNode> crds = new ConcurrentHashMap<>();

  static boolean builtIn(String group) {
    return group.isEmpty() || BUILT_IN_GROUPS.containsKey(group);
  }

  /**
   * What apiextensions' validation refuses that the schema checks do not see: a CRD of a protected
   * group ({@code k8s.io}, {@code kubernetes.io} and their subdomains) without its API review on
   * record.
   */
  static List<String> problems(JsonNode crd) {
    String group = crd.at("/spec/group").asText();
    boolean isProtected =
        group.equals("k8s.io")
            || group.endsWith(".k8s.io")
            || group.equals("kubernetes.io")
            || group.endsWith(".kubernetes.io");
    String approval = crd.at("/metadata/annotations/" + APPROVAL.replace("/", "~1")).asText("");
    if (!isProtected || approval.startsWith("unapproved") || approval.matches("https?://.+")) {
      return List.of();
    }
    return List.of(
        "metadata.annotations["
            + APPROVAL
            + "]: "
            + (approval.isEmpty() ? "Required value" : "Invalid value: \"" + approval + "\"")
            + ": protected groups must have approval annotation \""
            + APPROVAL
            + "\""
            + (approval.isEmpty()
                ? ""
                : " with either a URL or a reason starting with \"unapproved\"")
            + ", see https://github.com/kubernetes/enhancements/pull/1111");
  }

  /**
   * Writes the CRD's {@code status.acceptedNames} and conditions as the naming and establishing
   * controllers would, given the other CRDs stored.
   */
  void admit(ObjectNode crd) {
    String name = crd.at("/metadata/name").asText();
    ObjectNode names = defaulted(crd.at("/spec/names"));
    Optional<String> conflict = conflict(name, crd.at("/spec/group").asText(), names);
    ObjectNode status = crd.putObject("status");
    ArrayNode conditions = status.putArray("conditions");
    String now =
        java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString();
    if (conflict.isPresent()) {
      status.putObject("acceptedNames").put("plural", "").put("kind", "");
      conditions.add(
          condition(
              "NamesAccepted",
              "False",
              conflict.get().split(":", 2)[0],
              conflict.get().split(":", 2)[1],
              now));
      conditions.add(
          condition("Established", "False", "NotAccepted", "not all names are accepted", now));
    } else {
      status.set("acceptedNames", names);
      conditions.add(condition("NamesAccepted", "True", "NoConflicts", "no conflicts found", now));
      conditions.add(
          condition(
              "Established",
              "True",
              "InitialNamesAccepted",
              "the initial names have been accepted",
              now));
    }
    status.putArray("storedVersions");
    for (JsonNode version : crd.at("/spec/versions")) {
      if (version.path("storage").asBoolean()) {
        ((ArrayNode) status.get("storedVersions")).add(version.path("name").asText());
      }
    }
    crds.put(name, crd.deepCopy());
  }

  /**
   * A CRD deleted: forgets it, and returns the CRDs of its group that were refused and whose names
   * are now free (to be admitted and stored again).
   */
  List<String> removed(String name) {
    JsonNode gone = crds.remove(name);
    if (gone == null) {
      return List.of();
    }
    String group = gone.at("/spec/group").asText();
    return crds.values().stream()
        .filter(crd -> crd.at("/spec/group").asText().equals(group))
        .filter(crd -> !established(crd))
        .map(crd -> crd.at("/metadata/name").asText())
        .toList();
  }

  /** Whether objects of {@code plural} in {@code group/version} are served. */
  boolean serves(String group, String version, String plural) {
    return crds.values().stream()
        .filter(CrdServing::established)
        .filter(crd -> crd.at("/spec/group").asText().equals(group))
        .filter(crd -> crd.at("/status/acceptedNames/plural").asText().equals(plural))
        .anyMatch(crd -> servedVersions(crd).contains(version));
  }

  /** {@code /apis}: the built-in groups and the groups of Established CRDs. */
  String groupList() {
    Map<String, List<String>> groups = new LinkedHashMap<>();
    BUILT_IN_GROUPS.forEach((group, version) -> groups.put(group, List.of(version)));
    for (JsonNode crd : crds.values()) {
      if (established(crd)) {
        List<String> versions =
            new ArrayList<>(groups.getOrDefault(crd.at("/spec/group").asText(), List.of()));
        servedVersions(crd).stream().filter(v -> !versions.contains(v)).forEach(versions::add);
        groups.put(crd.at("/spec/group").asText(), versions);
      }
    }
    ObjectNode list = Serialization.jsonMapper().createObjectNode();
    list.put("kind", "APIGroupList").put("apiVersion", "v1");
    ArrayNode items = list.putArray("groups");
    groups.forEach(
        (group, versions) -> {
          ObjectNode item = items.addObject().put("name", group);
          ArrayNode listed = item.putArray("versions");
          versions.forEach(
              v -> listed.addObject().put("groupVersion", group + "/" + v).put("version", v));
          item.putObject("preferredVersion")
              .put("groupVersion", group + "/" + versions.get(0))
              .put("version", versions.get(0));
        });
    return Serialization.asJson(list);
  }

  /** {@code /apis/<group>/<version>} of a group that is not built in; empty if none is served. */
  Optional<String> resourceList(String group, String version) {
    ObjectNode list = Serialization.jsonMapper().createObjectNode();
    list.put("kind", "APIResourceList").put("apiVersion", "v1");
    list.put("groupVersion", group + "/" + version);
    ArrayNode resources = list.putArray("resources");
    for (JsonNode crd : crds.values()) {
      if (established(crd)
          && crd.at("/spec/group").asText().equals(group)
          && servedVersions(crd).contains(version)) {
        JsonNode names = crd.at("/status/acceptedNames");
        ObjectNode resource = resources.addObject();
        resource.put("name", names.path("plural").asText());
        resource.put("singularName", names.path("singular").asText());
        resource.put("namespaced", crd.at("/spec/scope").asText().equals("Namespaced"));
        resource.put("kind", names.path("kind").asText());
        resource.set(
            "verbs",
            Serialization.jsonMapper()
                .valueToTree(
                    List.of(
                        "delete",
                        "deletecollection",
                        "get",
                        "list",
                        "patch",
                        "create",
                        "update",
                        "watch")));
        if (names.has("shortNames")) {
          resource.set("shortNames", names.get("shortNames"));
        }
      }
    }
    return resources.isEmpty() ? Optional.empty() : Optional.of(Serialization.asJson(list));
  }

  private Optional<String> conflict(String name, String group, JsonNode names) {
    for (JsonNode other : crds.values()) {
      if (other.at("/metadata/name").asText().equals(name)
          || !other.at("/spec/group").asText().equals(group)
          || !established(other)) {
        continue;
      }
      JsonNode taken = other.at("/status/acceptedNames");
      for (String field : NAME_FIELDS) {
        if (names.path(field).asText().equals(taken.path(field).asText())) {
          String reason = Character.toUpperCase(field.charAt(0)) + field.substring(1) + "Conflict";
          return Optional.of(reason + ":\"" + names.path(field).asText() + "\" is already in use");
        }
      }
      for (JsonNode shortName : names.path("shortNames")) {
        if (StreamSupport.stream(taken.path("shortNames").spliterator(), false)
            .anyMatch(t -> t.asText().equals(shortName.asText()))) {
          return Optional.of("ShortNamesConflict:\"" + shortName.asText() + "\" is already in use");
        }
      }
    }
    return Optional.empty();
  }

  /** The names with the server's defaults: singular from the kind, listKind kind + "List". */
  private static ObjectNode defaulted(JsonNode names) {
    ObjectNode defaulted = names.deepCopy();
    String kind = names.path("kind").asText();
    if (!defaulted.hasNonNull("singular")) {
      defaulted.put("singular", kind.toLowerCase());
    }
    if (!defaulted.hasNonNull("listKind")) {
      defaulted.put("listKind", kind + "List");
    }
    return defaulted;
  }

  private static boolean established(JsonNode crd) {
    for (JsonNode condition : crd.at("/status/conditions")) {
      if (condition.path("type").asText().equals("Established")) {
        return condition.path("status").asText().equals("True");
      }
    }
    return false;
  }

  private static Set<String> servedVersions(JsonNode crd) {
    Set<String> versions = new java.util.LinkedHashSet<>();
    for (JsonNode version : crd.at("/spec/versions")) {
      if (version.path("served").asBoolean()) {
        versions.add(version.path("name").asText());
      }
    }
    return versions;
  }

  private static ObjectNode condition(
      String type, String status, String reason, String message, String now) {
    return Serialization.jsonMapper()
        .createObjectNode()
        .put("type", type)
        .put("status", status)
        .put("lastTransitionTime", now)
        .put("reason", reason)
        .put("message", message);
  }
}
