package io.thinvol.operator.model;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetStatus;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.api.v1alpha1.StorageBackendStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The status a person reads with {@code kubectl describe sb}: Ready, Progressing and Degraded with
 * a CamelCase reason and a message saying what to do; node counts from the DaemonSet. A condition
 * keeps its lastTransitionTime while its status does not change.
 */
public final class StatusModel {

  public static final String READY = "Ready";
  public static final String PROGRESSING = "Progressing";
  public static final String DEGRADED = "Degraded";

  private StatusModel() {}

  /**
   * @param registeredNodes nodes whose CSINode lists the backend's driver
   * @param pods the backend's node pods
   */
  public static StorageBackendStatus of(
      StorageBackend backend,
      Optional<DaemonSet> daemonSet,
      Set<String> registeredNodes,
      List<Pod> pods,
      Instant now) {
    long generation = generation(backend);
    List<Condition> previous = previousConditions(backend);
    StorageBackendStatus status = fresh(backend);

    DaemonSetStatus ds = daemonSet.map(DaemonSet::getStatus).orElse(null);
    int desired = ds == null ? 0 : nz(ds.getDesiredNumberScheduled());
    int ready = ds == null ? 0 : nz(ds.getNumberReady());
    int updated = ds == null ? 0 : nz(ds.getUpdatedNumberScheduled());
    StorageBackendStatus.NodeCounts nodes = new StorageBackendStatus.NodeCounts();
    nodes.setDesired(desired);
    nodes.setReady(ready);
    nodes.setRegistered(registeredNodes.size());
    status.setNodes(nodes);
    List<StorageBackendStatus.NodeProblem> problems =
        NodeProblems.of(backend, registeredNodes, pods);
    status.setNodeProblems(problems.isEmpty() ? null : problems);

    boolean observed =
        ds != null
            && daemonSet.get().getMetadata().getGeneration() != null
            && nz(ds.getObservedGeneration()) >= daemonSet.get().getMetadata().getGeneration();
    List<Condition> conditions = new ArrayList<>();
    if (ds == null || !observed) {
      conditions.add(
          condition(
              previous,
              READY,
              "False",
              "Deploying",
              "the node plugin is being deployed",
              generation,
              now));
      conditions.add(
          condition(
              previous,
              PROGRESSING,
              "True",
              "Deploying",
              "the node plugin is being deployed",
              generation,
              now));
      conditions.add(
          condition(
              previous,
              DEGRADED,
              "False",
              "Deploying",
              "nothing is wrong so far",
              generation,
              now));
    } else if (desired == 0) {
      String message =
          "no node matches the nodeSelector and tolerations of this StorageBackend, so no node can"
              + " hold its volumes; label a node or change spec.nodeSelector";
      conditions.add(condition(previous, READY, "False", "NoNodes", message, generation, now));
      conditions.add(
          condition(previous, PROGRESSING, "False", "NoNodes", message, generation, now));
      conditions.add(condition(previous, DEGRADED, "True", "NoNodes", message, generation, now));
    } else if (ready < desired || updated < desired) {
      String message =
          String.format(
              "%d of %d nodes ready, %d updated; the pods of DaemonSet %s say why",
              ready, desired, updated, daemonSet.get().getMetadata().getName());
      conditions.add(
          condition(previous, READY, "False", "NodesNotReady", message, generation, now));
      conditions.add(
          condition(previous, PROGRESSING, "True", "RollingOut", message, generation, now));
      conditions.add(
          condition(
              previous,
              DEGRADED,
              "False",
              "RollingOut",
              "nothing is wrong so far",
              generation,
              now));
    } else if (registeredNodes.size() < desired) {
      String message =
          String.format(
              "the driver runs on all %d nodes but the kubelet registered it on %d; see"
                  + " status.nodeProblems",
              desired, registeredNodes.size());
      conditions.add(
          condition(previous, READY, "False", "NotRegistered", message, generation, now));
      conditions.add(
          condition(previous, PROGRESSING, "True", "Registering", message, generation, now));
      conditions.add(
          condition(
              previous,
              DEGRADED,
              "False",
              "Registering",
              "nothing is wrong so far",
              generation,
              now));
    } else {
      String message = String.format("the driver runs on all %d nodes", desired);
      conditions.add(condition(previous, READY, "True", "AllNodesReady", message, generation, now));
      conditions.add(
          condition(previous, PROGRESSING, "False", "Deployed", message, generation, now));
      conditions.add(
          condition(previous, DEGRADED, "False", "AllNodesReady", message, generation, now));
    }
    status.setConditions(conditions);
    return status;
  }

  /** The status of a backend whose spec cannot be deployed as it stands; nothing was deployed. */
  public static StorageBackendStatus refused(
      StorageBackend backend, String reason, String message, Instant now) {
    long generation = generation(backend);
    List<Condition> previous = previousConditions(backend);
    StorageBackendStatus status = fresh(backend);
    status.setNodes(
        Optional.ofNullable(backend.getStatus())
            .map(StorageBackendStatus::getNodes)
            .orElseGet(StorageBackendStatus.NodeCounts::new));
    status.setConditions(
        List.of(
            condition(previous, READY, "False", reason, message, generation, now),
            condition(previous, PROGRESSING, "False", reason, message, generation, now),
            condition(previous, DEGRADED, "True", reason, message, generation, now)));
    return status;
  }

  /** The status of a backend whose deletion waits for volumes that still use it. */
  public static StorageBackendStatus deletionBlocked(
      StorageBackend backend, String message, Instant now) {
    long generation = generation(backend);
    StorageBackendStatus status =
        Optional.ofNullable(backend.getStatus()).orElseGet(StorageBackendStatus::new);
    List<Condition> previous = status.getConditions();
    List<Condition> conditions = new ArrayList<>();
    for (Condition condition : previous) {
      if (!DEGRADED.equals(condition.getType())) {
        conditions.add(condition);
      }
    }
    conditions.add(
        condition(previous, DEGRADED, "True", "DeletionBlocked", message, generation, now));
    status.setConditions(conditions);
    return status;
  }

  private static long generation(StorageBackend backend) {
    return Optional.ofNullable(backend.getMetadata().getGeneration()).orElse(0L);
  }

  private static List<Condition> previousConditions(StorageBackend backend) {
    return Optional.ofNullable(backend.getStatus())
        .map(StorageBackendStatus::getConditions)
        .orElse(List.of());
  }

  private static StorageBackendStatus fresh(StorageBackend backend) {
    StorageBackendStatus status = new StorageBackendStatus();
    status.setDriverName(backend.driverName());
    status.setObservedGeneration(generation(backend));
    return status;
  }

  public static boolean isDegraded(StorageBackendStatus status) {
    return status.getConditions().stream()
        .anyMatch(c -> DEGRADED.equals(c.getType()) && "True".equals(c.getStatus()));
  }

  /** The message of a condition, or an empty string. */
  public static String message(StorageBackendStatus status, String type) {
    return status.getConditions().stream()
        .filter(c -> type.equals(c.getType()))
        .map(Condition::getMessage)
        .findFirst()
        .orElse("");
  }

  /** True when the Ready condition is True. */
  public static boolean isReady(StorageBackendStatus status) {
    return status.getConditions().stream()
        .anyMatch(c -> READY.equals(c.getType()) && "True".equals(c.getStatus()));
  }

  private static Condition condition(
      List<Condition> previous,
      String type,
      String status,
      String reason,
      String message,
      long generation,
      Instant now) {
    String since =
        previous.stream()
            .filter(c -> type.equals(c.getType()) && Objects.equals(status, c.getStatus()))
            .map(Condition::getLastTransitionTime)
            .filter(Objects::nonNull)
            .findFirst()
            .orElse(now.toString());
    return new ConditionBuilder()
        .withType(type)
        .withStatus(status)
        .withReason(reason)
        .withMessage(message)
        .withObservedGeneration(generation)
        .withLastTransitionTime(since)
        .build();
  }

  private static int nz(Integer value) {
    return value == null ? 0 : value;
  }

  private static long nz(Long value) {
    return value == null ? 0 : value;
  }
}
