package io.thinvol.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The CRDs registered in the strict API server, and what the API server does with an object of
 * theirs before storing it: prune unknown fields, apply defaults, validate the OpenAPI schema, and
 * evaluate the CEL rules.
 */
final class CustomResources {

  private static final Set<String> ROOT_FIELDS = Set.of("apiVersion", "kind", "metadata");

  /** Schemas by {@code group/version kind}. */
  private final Map<String, JsonNode> schemas = new ConcurrentHashMap<>();

  /** Plurals by {@code group/kind}. */
  private final Map<String, String> plurals = new ConcurrentHashMap<>();

  /** Kinds ({@code group/kind}) whose objects live outside namespaces. */
  private final Set<String> clusterScoped =
      ConcurrentHashMap.newKeySet(); // built-ins are added in the constructor

  CustomResources() {
    clusterScoped.addAll(
        Set.of(
            "/Namespace",
            "/Node",
            "/PersistentVolume",
            "storage.k8s.io/StorageClass",
            "storage.k8s.io/CSIDriver",
            "storage.k8s.io/CSINode",
            "storage.k8s.io/VolumeAttachment",
            "rbac.authorization.k8s.io/ClusterRole",
            "rbac.authorization.k8s.io/ClusterRoleBinding",
            "apiextensions.k8s.io/CustomResourceDefinition",
            "security.openshift.io/SecurityContextConstraints",
            "snapshot.storage.k8s.io/VolumeSnapshotClass",
            "snapshot.storage.k8s.io/VolumeSnapshotContent"));
  }

  /** Whether objects of an API group and kind ({@code group/kind}) live in namespaces. */
  boolean namespaced(String groupAndKind) {
    return !clusterScoped.contains(groupAndKind);
  }

  void register(JsonNode crd) {
    String group = crd.at("/spec/group").asText();
    String kind = crd.at("/spec/names/kind").asText();
    plurals.put(group + "/" + kind, crd.at("/spec/names/plural").asText());
    if (crd.at("/spec/scope").asText().equals("Cluster")) {
      clusterScoped.add(group + "/" + kind);
    }
    for (JsonNode version : crd.at("/spec/versions")) {
      schemas.put(
          group + "/" + version.path("name").asText() + " " + kind,
          version.at("/schema/openAPIV3Schema"));
    }
  }

  Optional<JsonNode> schemaOf(JsonNode object) {
    return Optional.ofNullable(
        schemas.get(object.path("apiVersion").asText() + " " + object.path("kind").asText()));
  }

  /**
   * The resource of an API group and kind: a CRD's plural, or the built-in's lower-cased plural.
   */
  String plural(String groupAndKind) {
    String known = plurals.get(groupAndKind);
    if (known != null) {
      return known;
    }
    String kind = groupAndKind.substring(groupAndKind.indexOf('/') + 1).toLowerCase();
    if (kind.endsWith("s")) {
      return kind + "es";
    }
    return kind.endsWith("y") ? kind.substring(0, kind.length() - 1) + "ies" : kind + "s";
  }

  /**
   * Prunes and defaults {@code object} in place and returns the problems: the schema's and the CEL
   * rules' (with {@code old} for transition rules; null on create).
   */
  List<String> admit(JsonNode schema, ObjectNode object, JsonNode stored) {
    prepare(schema, object, true);
    // The API server defaults what it reads from storage too: compare with the old object so.
    JsonNode old = stored == null ? null : stored.deepCopy();
    if (old != null) {
      prepare(schema, old, true);
    }
    List<String> problems = new ArrayList<>(SchemaValidator.validate(schema, object));
    if (problems.isEmpty()) {
      problems.addAll(CelRules.problems(schema, object, old));
    }
    // Ratcheting (Kubernetes 1.30+): an update may keep a value that no longer validates.
    problems.removeIf(problem -> old != null && unchanged(fieldOf(problem), object, old));
    sortKeys(object);
    return problems;
  }

  /**
   * A real server keeps a custom resource as a map and answers with its keys sorted, whatever order
   * they were sent in: code that compares what it wrote with what it reads as text fails there.
   */
  private static void sortKeys(JsonNode value) {
    if (value.isObject()) {
      ObjectNode object = (ObjectNode) value;
      Map<String, JsonNode> sorted = new TreeMap<>();
      object.fields().forEachRemaining(field -> sorted.put(field.getKey(), field.getValue()));
      object.removeAll();
      sorted.forEach(object::set);
    }
    value.elements().forEachRemaining(CustomResources::sortKeys);
  }

  /** The field a problem names: its text up to the first space or colon. */
  private static String fieldOf(String problem) {
    return problem.split("[ :]", 2)[0];
  }

  private static boolean unchanged(String field, JsonNode object, JsonNode old) {
    if (field.isEmpty() || field.equals("<nil>") || field.equals("the")) {
      return false;
    }
    String pointer = "/" + field.replaceAll("\\[(\\d+)]", ".$1").replace('.', '/');
    JsonNode now = object.at(pointer);
    return !now.isMissingNode() && now.equals(old.at(pointer));
  }

  /** Drops what the schema does not know and fills in its defaults. */
  private static void prepare(JsonNode schema, JsonNode value, boolean root) {
    if (value.isObject() && !schema.path("x-kubernetes-preserve-unknown-fields").asBoolean(false)) {
      ObjectNode object = (ObjectNode) value;
      JsonNode properties = schema.path("properties");
      JsonNode additional = schema.path("additionalProperties");
      if (properties.isObject()) {
        properties
            .fields()
            .forEachRemaining(
                p -> {
                  if (!object.has(p.getKey()) && p.getValue().has("default")) {
                    object.set(p.getKey(), p.getValue().get("default").deepCopy());
                  }
                });
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> field = it.next();
        if (root && ROOT_FIELDS.contains(field.getKey())) {
          continue;
        }
        JsonNode child =
            properties.has(field.getKey()) ? properties.get(field.getKey()) : additional;
        if (child.isObject()) {
          prepare(child, field.getValue(), false);
        } else if (properties.isObject() || additional.isBoolean()) {
          it.remove();
        }
      }
    } else if (value.isArray()) {
      value.forEach(element -> prepare(schema.path("items"), element, false));
    }
  }
}
