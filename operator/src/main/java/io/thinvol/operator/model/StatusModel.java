package io.thinvol.operator.model;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetStatus;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.api.kube.Conditions;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.api.v1alpha1.StorageBackendStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
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

  /** The reason of a rollout that stopped making progress ({@link #stalled}). */
  public static final String PROGRESS_DEADLINE_EXCEEDED = "ProgressDeadlineExceeded";

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
    if (status.getDataDir() == null) {
      status.setDataDir(Effective.of(backend).dataDir()); // the first deploy records it
    }

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
    List<String> failing = NodeProblems.failing(pods);
    ConditionSet conditions = new ConditionSet(previous, generation, now);
    if (ds == null || !observed) {
      conditions.underWay("Deploying", "Deploying", "the node plugin is being deployed");
    } else if (desired == 0) {
      conditions.broken(
          "NoNodes",
          "no node matches the nodeSelector and tolerations of this StorageBackend, so no node can"
              + " hold its volumes; label a node or change spec.nodeSelector");
    } else if (!NodeProblems.dataDirUnusable(pods).isEmpty()) {
      // Waiting helps nothing here: a disk must be mounted or repaired.
      conditions.broken(
          "DataDirUnusable", DataDirSummary.unusable(NodeProblems.dataDirUnusable(pods)));
    } else if (!failing.isEmpty()) {
      // A wrong image or a crash loop: waiting helps nothing either.
      conditions.broken(
          "NodePodsFailing",
          String.format("the driver pods fail on %s; see status.nodeProblems", failing));
    } else if (ready < desired || updated < desired) {
      conditions.underWay(
          "NodesNotReady",
          "RollingOut",
          String.format(
              "%d of %d nodes ready, %d updated; the pods of DaemonSet %s say why",
              ready, desired, updated, daemonSet.get().getMetadata().getName()));
    } else if (registeredNodes.size() < desired) {
      conditions.underWay(
          "NotRegistered",
          "Registering",
          String.format(
              "the driver runs on all %d nodes but the kubelet registered it on %d; see"
                  + " status.nodeProblems",
              desired, registeredNodes.size()));
    } else {
      String message = String.format("the driver runs on all %d nodes", desired);
      conditions.add(READY, "True", "AllNodesReady", message);
      conditions.add(PROGRESSING, "False", "Deployed", message);
      List<StorageBackendStatus.NodeProblem> full = NodeProblems.dataDirFull(pods);
      if (full.isEmpty()) {
        conditions.add(DEGRADED, "False", "AllNodesReady", message);
      } else {
        // The driver still works there, but the volumes' writes fail: news for a person.
        conditions.add(
            DEGRADED,
            "True",
            "DataDirFull",
            "the data dir is full on "
                + full.stream().map(StorageBackendStatus.NodeProblem::getNode).toList()
                + ": writes to volumes there fail until space is freed; see status.nodeProblems");
      }
    }
    status.setConditions(conditions.list());
    return status;
  }

  /** The status of a backend whose spec cannot be deployed as it stands; nothing was deployed. */
  public static StorageBackendStatus refused(
      StorageBackend backend, String reason, String message, Instant now) {
    long generation = generation(backend);
    List<Condition> previous = previousConditions(backend);
    StorageBackendStatus status = withLastNodes(backend);
    ConditionSet conditions = new ConditionSet(previous, generation, now);
    conditions.broken(reason, message);
    status.setConditions(conditions.list());
    return status;
  }

  /**
   * {@code status}, a rollout under way, as one that has made no progress for {@code deadline}:
   * Progressing and Degraded say so (a person should look at the pods); Ready stays as it is.
   */
  public static StorageBackendStatus stalled(
      StorageBackend backend, StorageBackendStatus status, Duration deadline, Instant now) {
    String message =
        String.format(
            "no progress for %d minutes: %s", deadline.toMinutes(), message(status, READY));
    List<Condition> previous = previousConditions(backend);
    long generation = generation(backend);
    StorageBackendStatus stalled = Serialization.clone(status);
    List<Condition> conditions = new ArrayList<>();
    for (Condition condition : status.getConditions()) {
      conditions.add(
          READY.equals(condition.getType())
              ? condition
              : Conditions.of(
                  previous,
                  condition.getType(),
                  PROGRESSING.equals(condition.getType()) ? "False" : "True",
                  PROGRESS_DEADLINE_EXCEEDED,
                  message,
                  generation,
                  now));
    }
    stalled.setConditions(conditions);
    return stalled;
  }

  /**
   * The status of a deleted backend whose DaemonSet is gone and whose node pods have not stopped
   * yet: the rest of the teardown waits for them.
   */
  public static StorageBackendStatus stoppingNodePods(
      StorageBackend backend, String message, Instant now) {
    StorageBackendStatus status = withLastNodes(backend);
    ConditionSet conditions =
        new ConditionSet(previousConditions(backend), generation(backend), now);
    conditions.underWay("Deleting", "StoppingNodePods", message);
    status.setConditions(conditions.list());
    return status;
  }

  static long generation(StorageBackend backend) {
    return Optional.ofNullable(backend.getMetadata().getGeneration()).orElse(0L);
  }

  static List<Condition> previousConditions(StorageBackend backend) {
    return Optional.ofNullable(backend.getStatus())
        .map(StorageBackendStatus::getConditions)
        .orElse(List.of());
  }

  static StorageBackendStatus fresh(StorageBackend backend) {
    StorageBackendStatus status = new StorageBackendStatus();
    status.setDriverName(backend.driverName());
    status.setObservedGeneration(generation(backend));
    status.setDataDir(recordedDataDir(backend));
    return status;
  }

  /** A fresh status that keeps the node counts last seen: nothing new is known of the nodes. */
  private static StorageBackendStatus withLastNodes(StorageBackend backend) {
    StorageBackendStatus status = fresh(backend);
    status.setNodes(
        Optional.ofNullable(backend.getStatus())
            .map(StorageBackendStatus::getNodes)
            .orElseGet(StorageBackendStatus.NodeCounts::new));
    return status;
  }

  /** The data dir of the first deploy, or null before it. */
  public static String recordedDataDir(StorageBackend backend) {
    return Optional.ofNullable(backend.getStatus())
        .map(StorageBackendStatus::getDataDir)
        .orElse(null);
  }

  public static boolean isDegraded(StorageBackendStatus status) {
    return has(status, DEGRADED, "True");
  }

  /** The message of a condition, or an empty string. */
  public static String message(StorageBackendStatus status, String type) {
    return status.getConditions().stream()
        .filter(c -> type.equals(c.getType()))
        .map(Condition::getMessage)
        .findFirst()
        .orElse("");
  }

  /** True when the Progressing condition is True: a rollout is under way. */
  public static boolean isProgressing(StorageBackendStatus status) {
    return has(status, PROGRESSING, "True");
  }

  /** The reason of a condition, or an empty string. */
  public static String reason(StorageBackendStatus status, String type) {
    return status.getConditions().stream()
        .filter(c -> type.equals(c.getType()))
        .map(Condition::getReason)
        .findFirst()
        .orElse("");
  }

  /** True when the Ready condition is True. */
  public static boolean isReady(StorageBackendStatus status) {
    return has(status, READY, "True");
  }

  private static boolean has(StorageBackendStatus status, String type, String value) {
    return status.getConditions().stream()
        .anyMatch(c -> type.equals(c.getType()) && value.equals(c.getStatus()));
  }

  private static int nz(Integer value) {
    return value == null ? 0 : value;
  }

  private static long nz(Long value) {
    return value == null ? 0 : value;
  }
}
