package io.thinvol.operator.model;

import io.thinvol.api.v1alpha1.StorageBackendStatus.NodeProblem;
import java.util.List;

/** The nodes whose data dir keeps the driver from working, in a condition's (and Event's) words. */
final class DataDirSummary {

  private DataDirSummary() {}

  /**
   * @param problems at least one
   */
  static String unusable(List<NodeProblem> problems) {
    return "the data dir cannot take volumes on "
        + problems.stream().map(NodeProblem::getNode).toList()
        + " ("
        + problems.get(0).getProblem()
        + "); the drivers there stay up and pick the data dir up once it is fixed; see"
        + " status.nodeProblems";
  }
}
