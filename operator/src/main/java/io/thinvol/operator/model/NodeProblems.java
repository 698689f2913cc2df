package io.thinvol.operator.model;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.api.v1alpha1.StorageBackendStatus.NodeProblem;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Nodes where the driver does not work, said in the status so nobody has to read pod logs to find
 * them: a driver that reports its data dir unusable (a dedicated mount missing, read-only: a
 * condition of its own pod, which also makes it not ready), a driver pod that is not ready (with
 * its container's reason), a ready pod whose kubelet has not registered the driver, or a driver
 * that reports its data dir full.
 */
final class NodeProblems {

  /** The condition a driver sets on its own pod; the driver's DataDirCondition writes it. */
  static final String DATA_DIR_FULL = "thinvol.io/DataDirFull";

  /** Set by the same driver class when images cannot be written to the data dir at all. */
  static final String DATA_DIR_UNUSABLE = "thinvol.io/DataDirUnusable";

  /**
   * Waiting reasons of a container that does not start as it is specified: waiting longer does not
   * help (a wrong image, a missing Secret).
   */
  private static final Set<String> CANNOT_START =
      Set.of(
          "ErrImagePull",
          "ImagePullBackOff",
          "InvalidImageName",
          "CreateContainerConfigError",
          "CreateContainerError",
          "RunContainerError");

  /**
   * Restarts a container may need while its pod starts (a sidecar that came up before the driver's
   * socket exits once or twice); a crash loop beyond them is a failure.
   */
  private static final int START_UP_RESTARTS = 3;

  private NodeProblems() {}

  /** The nodes whose driver reports a full data dir, each with the driver's message. */
  static List<NodeProblem> dataDirFull(List<Pod> pods) {
    return reported(pods, DATA_DIR_FULL);
  }

  /** The nodes whose driver cannot write images to its data dir, each with the driver's message. */
  static List<NodeProblem> dataDirUnusable(List<Pod> pods) {
    return reported(pods, DATA_DIR_UNUSABLE);
  }

  private static List<NodeProblem> reported(List<Pod> pods, String conditionType) {
    List<NodeProblem> problems = new ArrayList<>();
    for (Pod pod : pods) {
      String node = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
      if (node == null) {
        continue;
      }
      reportedBy(pod, conditionType).ifPresent(message -> problems.add(problem(node, message)));
    }
    problems.sort(Comparator.comparing(NodeProblem::getNode));
    return problems;
  }

  private static Optional<String> reportedBy(Pod pod, String conditionType) {
    if (pod.getStatus() == null || pod.getStatus().getConditions() == null) {
      return Optional.empty();
    }
    return pod.getStatus().getConditions().stream()
        .filter(c -> conditionType.equals(c.getType()) && "True".equals(c.getStatus()))
        .map(c -> c.getMessage())
        .findFirst();
  }

  /** The nodes whose driver pod fails: a container that cannot start, or crash-loops. */
  static List<String> failing(List<Pod> pods) {
    return pods.stream()
        .filter(pod -> pod.getSpec() != null && pod.getSpec().getNodeName() != null)
        .filter(NodeProblems::fails)
        .map(pod -> pod.getSpec().getNodeName())
        .sorted()
        .toList();
  }

  private static boolean fails(Pod pod) {
    if (pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null) {
      return false;
    }
    for (ContainerStatus container : pod.getStatus().getContainerStatuses()) {
      var state = container.getState();
      if (state == null || state.getWaiting() == null || state.getWaiting().getReason() == null) {
        continue;
      }
      String waiting = state.getWaiting().getReason();
      int restarts = container.getRestartCount() == null ? 0 : container.getRestartCount();
      if (CANNOT_START.contains(waiting)
          || waiting.equals("CrashLoopBackOff") && restarts >= START_UP_RESTARTS) {
        return true;
      }
    }
    return false;
  }

  static List<NodeProblem> of(StorageBackend backend, Set<String> registeredNodes, List<Pod> pods) {
    List<NodeProblem> problems = new ArrayList<>();
    for (Pod pod : pods) {
      String node = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
      if (node == null) {
        continue; // not scheduled yet: the DaemonSet counts say so
      }
      String notReady = notReady(pod);
      Optional<String> unusable = reportedBy(pod, DATA_DIR_UNUSABLE);
      if (unusable.isPresent()) {
        problems.add(
            problem(node, "driver pod " + pod.getMetadata().getName() + ": " + unusable.get()));
      } else if (notReady != null) {
        problems.add(
            problem(
                node, "driver pod " + pod.getMetadata().getName() + " is not ready: " + notReady));
      } else if (!registeredNodes.contains(node)) {
        problems.add(
            problem(
                node,
                "the kubelet has not registered "
                    + backend.driverName()
                    + " on this node (CSINode); see the node-driver-registrar container's log"));
      }
    }
    problems.addAll(dataDirFull(pods));
    problems.sort(Comparator.comparing(NodeProblem::getNode));
    return problems;
  }

  /** Why the pod is not ready, or null when it is. */
  private static String notReady(Pod pod) {
    if (pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null) {
      return "it has not started";
    }
    for (ContainerStatus container : pod.getStatus().getContainerStatuses()) {
      if (!Boolean.TRUE.equals(container.getReady())) {
        var state = container.getState();
        if (state != null && state.getWaiting() != null) {
          return container.getName()
              + " is waiting ("
              + state.getWaiting().getReason()
              + (state.getWaiting().getMessage() == null
                  ? ""
                  : ": " + state.getWaiting().getMessage())
              + ")";
        }
        if (state != null && state.getTerminated() != null) {
          return container.getName() + " terminated (" + state.getTerminated().getReason() + ")";
        }
        return container.getName() + " is not ready";
      }
    }
    return null;
  }

  private static NodeProblem problem(String node, String text) {
    NodeProblem problem = new NodeProblem();
    problem.setNode(node);
    problem.setProblem(text);
    return problem;
  }
}
