package io.thinvol.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import java.util.Set;

/**
 * A container probe as the API server stores it ({@code SetDefaults_Probe} of {@code
 * pkg/apis/core/v1/defaults.go}): a missing or zero timeout, period and thresholds get their
 * defaults, and a zero initial delay is not stored at all (the field is omitted when empty). An
 * object written with {@code initialDelaySeconds: 0} therefore never reads back equal to itself.
 */
final class ProbeDefaults {

  /** {@code group/kind} of the kinds that hold pods or pod templates. */
  static final Set<String> WITH_PODS =
      Set.of(
          "/Pod",
          "/PodTemplate",
          "/ReplicationController",
          "apps/DaemonSet",
          "apps/Deployment",
          "apps/ReplicaSet",
          "apps/StatefulSet",
          "batch/Job",
          "batch/CronJob");

  private static final Set<String> PROBES =
      Set.of("livenessProbe", "readinessProbe", "startupProbe");

  private static final Map<String, Integer> DEFAULTS =
      Map.of(
          "timeoutSeconds", 1, "periodSeconds", 10, "successThreshold", 1, "failureThreshold", 3);

  private ProbeDefaults() {}

  /** Applies the defaults to every probe found in {@code node}, in place. */
  static void apply(JsonNode node) {
    if (node.isObject()) {
      ObjectNode object = (ObjectNode) node;
      object
          .fields()
          .forEachRemaining(
              field -> {
                if (PROBES.contains(field.getKey()) && field.getValue().isObject()) {
                  defaultProbe((ObjectNode) field.getValue());
                } else {
                  apply(field.getValue());
                }
              });
    } else if (node.isArray()) {
      node.forEach(ProbeDefaults::apply);
    }
  }

  private static void defaultProbe(ObjectNode probe) {
    if (probe.path("initialDelaySeconds").asInt(0) == 0) {
      probe.remove("initialDelaySeconds");
    }
    DEFAULTS.forEach(
        (field, value) -> {
          if (probe.path(field).asInt(0) == 0) {
            probe.put(field, value);
          }
        });
  }
}
