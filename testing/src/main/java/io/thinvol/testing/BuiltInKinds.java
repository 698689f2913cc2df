package io.thinvol.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a real API server does to built-in objects before storing them, where tests written against
 * the mock assumed otherwise (Kubernetes' {@code pkg/registry/<group>/<kind>/strategy.go}, its
 * defaults and the StorageObjectInUseProtection admission plugin):
 *
 * <ul>
 *   <li>the status of a kind with a status subresource is the subresource's alone: a create starts
 *       it afresh, an update of the object keeps the stored one, a status update keeps the stored
 *       spec (only the controllers that own the status write it: tests play them explicitly);
 *   <li>a claim gets the finalizer {@value #CLAIM_PROTECTION}, a volume {@value
 *       #VOLUME_PROTECTION}, a VolumeAttributesClass {@value #ATTRIBUTES_CLASS_PROTECTION}
 *       (StorageObjectInUseProtection): deleted, they stay until the protection controllers remove
 *       them;
 *   <li>a Secret of type {@code kubernetes.io/tls} has both {@code tls.crt} and {@code tls.key};
 *       its {@code stringData} is written into {@code data} and never stored;
 *   <li>a Pod has containers, each with a name and an image;
 *   <li>a CSIDriver's {@code attachRequired} and {@code volumeLifecycleModes} never change;
 *   <li>times ({@code metav1.Time}: an Event's first and last timestamp, a condition's transition)
 *       are stored to the second;
 *   <li>container probes get their defaults and lose a zero initial delay ({@link ProbeDefaults}).
 * </ul>
 */
final class BuiltInKinds {

  static final String CLAIM_PROTECTION = "kubernetes.io/pvc-protection";
  static final String VOLUME_PROTECTION = "kubernetes.io/pv-protection";
  static final String ATTRIBUTES_CLASS_PROTECTION = "kubernetes.io/vac-protection";

  /** {@code group/kind} of the kinds with a status subresource, and the status a create gets. */
  private static final Map<String, String> CREATED_STATUS =
      Map.ofEntries(
          Map.entry("/Pod", "{\"phase\":\"Pending\"}"),
          Map.entry("/PersistentVolumeClaim", "{\"phase\":\"Pending\"}"),
          Map.entry("/PersistentVolume", "{\"phase\":\"Pending\"}"),
          Map.entry("/Namespace", "{\"phase\":\"Active\"}"),
          Map.entry("/Service", "{\"loadBalancer\":{}}"),
          Map.entry("/ReplicationController", "{\"replicas\":0}"),
          Map.entry("/ResourceQuota", "{}"),
          Map.entry(
              "apps/DaemonSet",
              "{\"currentNumberScheduled\":0,\"numberMisscheduled\":0,"
                  + "\"desiredNumberScheduled\":0,\"numberReady\":0}"),
          Map.entry("apps/Deployment", "{}"),
          Map.entry("apps/ReplicaSet", "{\"replicas\":0}"),
          Map.entry("apps/StatefulSet", "{\"replicas\":0,\"availableReplicas\":0}"),
          Map.entry("batch/Job", "{}"),
          Map.entry("batch/CronJob", "{}"),
          Map.entry("storage.k8s.io/VolumeAttachment", "{\"attached\":false}"),
          Map.entry("policy/PodDisruptionBudget", "{}"));

  /** Kinds whose create keeps the status given, but whose updates keep the other part. */
  private static final Set<String> STATUS_KEPT_ON_CREATE = Set.of("/Node");

  private static final Map<String, String> PROTECTION =
      Map.of(
          "/PersistentVolumeClaim", CLAIM_PROTECTION,
          "/PersistentVolume", VOLUME_PROTECTION,
          "storage.k8s.io/VolumeAttributesClass", ATTRIBUTES_CLASS_PROTECTION);

  /** The kinds the StorageObjectInUseProtection admission plugin protects. */
  static final Set<String> PROTECTED_KINDS =
      Set.of("PersistentVolumeClaim", "PersistentVolume", "VolumeAttributesClass");

  private BuiltInKinds() {}

  /**
   * Prepares {@code object} in place as the server would store it.
   *
   * @param old the stored object (null on create)
   * @param statusWrite the request writes the status subresource
   */
  static void prepare(
      String group, String kind, ObjectNode object, JsonNode old, boolean statusWrite) {
    String groupKind = group + "/" + kind;
    truncateTimes(object);
    if (ProbeDefaults.WITH_PODS.contains(groupKind)) {
      ProbeDefaults.apply(object);
    }
    if (groupKind.equals("/Secret")) {
      mergeStringData(object);
    }
    boolean hasStatus =
        CREATED_STATUS.containsKey(groupKind) || STATUS_KEPT_ON_CREATE.contains(groupKind);
    if (old == null) {
      if (CREATED_STATUS.containsKey(groupKind)) {
        object.set(
            "status", Serialization.unmarshal(CREATED_STATUS.get(groupKind), JsonNode.class));
      }
      String finalizer = PROTECTION.get(groupKind);
      if (finalizer != null) {
        addFinalizer(object, finalizer);
      }
    } else if (hasStatus && statusWrite) {
      copy("spec", old, object);
    } else if (hasStatus) {
      copy("status", old, object);
    }
  }

  /** A Secret's {@code stringData} is written into {@code data}, base64, and never stored. */
  private static void mergeStringData(ObjectNode secret) {
    JsonNode stringData = secret.remove("stringData");
    if (stringData == null || !stringData.isObject()) {
      return;
    }
    ObjectNode data =
        secret.path("data").isObject() ? (ObjectNode) secret.get("data") : secret.putObject("data");
    stringData
        .fields()
        .forEachRemaining(
            e ->
                data.put(
                    e.getKey(),
                    java.util.Base64.getEncoder()
                        .encodeToString(
                            e.getValue()
                                .asText()
                                .getBytes(java.nio.charset.StandardCharsets.UTF_8))));
  }

  /** Fields of built-in kinds that are {@code metav1.Time}: stored to the second. */
  private static final Set<String> TIME_FIELDS =
      Set.of(
          "firstTimestamp",
          "lastTimestamp",
          "lastTransitionTime",
          "lastProbeTime",
          "lastHeartbeatTime",
          "lastUpdateTime",
          "startTime",
          "completionTime");

  /** Truncates every {@code metav1.Time} of a built-in object to the second, as the server does. */
  static void truncateTimes(JsonNode node) {
    if (node.isObject()) {
      ObjectNode object = (ObjectNode) node;
      object
          .fields()
          .forEachRemaining(
              field -> {
                JsonNode value = field.getValue();
                if (TIME_FIELDS.contains(field.getKey()) && value.isTextual()) {
                  object.put(field.getKey(), toSecond(value.asText()));
                } else {
                  truncateTimes(value);
                }
              });
    } else if (node.isArray()) {
      node.forEach(BuiltInKinds::truncateTimes);
    }
  }

  private static String toSecond(String time) {
    try {
      return java.time.OffsetDateTime.parse(time)
          .toInstant()
          .truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
          .toString();
    } catch (java.time.format.DateTimeParseException notATime) {
      return time;
    }
  }

  /** What the server's validation of built-in kinds refuses (the field paths of its messages). */
  static List<String> problems(String group, String kind, JsonNode object, JsonNode old) {
    List<String> problems = new ArrayList<>();
    if (group.equals("storage.k8s.io") && kind.equals("CSIDriver") && old != null) {
      // pkg/apis/storage/validation: the path names attachRequired "attachedRequired"
      for (String[] field :
          List.of(
              new String[] {"attachRequired", "attachedRequired"},
              new String[] {"volumeLifecycleModes", "volumeLifecycleModes"})) {
        JsonNode now = object.at("/spec/" + field[0]);
        if (!now.equals(old.at("/spec/" + field[0]))) {
          problems.add("spec." + field[1] + ": Invalid value: " + now + ": field is immutable");
        }
      }
    }
    if (group.isEmpty() && kind.equals("Pod")) {
      JsonNode containers = object.at("/spec/containers");
      if (containers.isEmpty()) {
        problems.add("spec.containers: Required value");
      }
      for (int i = 0; i < containers.size(); i++) {
        for (String field : List.of("name", "image")) {
          if (containers.get(i).path(field).asText("").isEmpty()) {
            problems.add("spec.containers[" + i + "]." + field + ": Required value");
          }
        }
      }
    }
    if (group.isEmpty()
        && kind.equals("Secret")
        && object.path("type").asText().equals("kubernetes.io/tls")) {
      for (String key : List.of("tls.crt", "tls.key")) {
        if (!object.path("data").has(key)) {
          problems.add("data[" + key + "]: Required value");
        }
      }
    }
    return problems;
  }

  private static void addFinalizer(ObjectNode object, String finalizer) {
    ObjectNode metadata = (ObjectNode) object.path("metadata");
    ArrayNode finalizers =
        metadata.path("finalizers").isArray()
            ? (ArrayNode) metadata.get("finalizers")
            : metadata.putArray("finalizers");
    for (JsonNode present : finalizers) {
      if (present.asText().equals(finalizer)) {
        return;
      }
    }
    finalizers.add(finalizer);
  }

  private static void copy(String field, JsonNode from, ObjectNode to) {
    if (from.has(field)) {
      to.set(field, from.get(field).deepCopy());
    } else {
      to.remove(field);
    }
  }
}
