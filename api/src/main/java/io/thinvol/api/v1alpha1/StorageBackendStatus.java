package io.thinvol.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;

/** What the operator observed; {@code kubectl describe sb <name>} shows it. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class StorageBackendStatus extends ConditionedStatus {

  @JsonPropertyDescription("The CSI driver name of this backend.")
  private String driverName;

  @JsonPropertyDescription(
      "The data directory the driver was first deployed with, where its volumes are. A spec whose"
          + " effective spec.sparseFile.dataDir differs is refused (moving volumes is not"
          + " supported).")
  private String dataDir;

  @JsonPropertyDescription("Driver pods and registrations across the selected nodes.")
  private NodeCounts nodes;

  @JsonPropertyDescription("Nodes where the driver is not working, and why.")
  private List<NodeProblem> nodeProblems;

  @JsonPropertyDescription(
      "Ready (the driver runs and is registered on every selected node), Progressing (a rollout"
          + " is under way), Degraded (something needs a person; the message says what),"
          + " VolumesOnLostNodes (claims bound to volumes on a deleted or out-of-service node).")
  @Override
  public List<Condition> getConditions() {
    return super.getConditions();
  }

  public String getDriverName() {
    return driverName;
  }

  public void setDriverName(String driverName) {
    this.driverName = driverName;
  }

  public String getDataDir() {
    return dataDir;
  }

  public void setDataDir(String dataDir) {
    this.dataDir = dataDir;
  }

  public NodeCounts getNodes() {
    return nodes;
  }

  public void setNodes(NodeCounts nodes) {
    this.nodes = nodes;
  }

  public List<NodeProblem> getNodeProblems() {
    return nodeProblems;
  }

  public void setNodeProblems(List<NodeProblem> nodeProblems) {
    this.nodeProblems = nodeProblems;
  }

  /** Counts of the driver across nodes. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class NodeCounts {

    @JsonPropertyDescription("Nodes that should run the driver.")
    private Integer desired;

    @JsonPropertyDescription("Nodes whose driver pod is ready.")
    private Integer ready;

    @JsonPropertyDescription("Nodes whose kubelet has registered the driver (CSINode).")
    private Integer registered;

    public Integer getDesired() {
      return desired;
    }

    public void setDesired(Integer desired) {
      this.desired = desired;
    }

    public Integer getReady() {
      return ready;
    }

    public void setReady(Integer ready) {
      this.ready = ready;
    }

    public Integer getRegistered() {
      return registered;
    }

    public void setRegistered(Integer registered) {
      this.registered = registered;
    }
  }

  /** A node where the driver does not work. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class NodeProblem {

    @JsonPropertyDescription("The node's name.")
    private String node;

    @JsonPropertyDescription("What is wrong, in plain words.")
    private String problem;

    public String getNode() {
      return node;
    }

    public void setNode(String node) {
      this.node = node;
    }

    public String getProblem() {
      return problem;
    }

    public void setProblem(String problem) {
      this.problem = problem;
    }
  }
}
