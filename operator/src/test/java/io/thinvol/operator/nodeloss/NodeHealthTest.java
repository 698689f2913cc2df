package io.thinvol.operator.nodeloss;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class NodeHealthTest {

  private static final String T = "2026-11-29T10:02:14Z";

  @Test
  void aDeletedNodeIsLost() {
    NodeHealth health = NodeHealth.of(Optional.empty());
    assertThat(health.state()).isEqualTo(NodeHealth.State.LOST);
    assertThat(health.describe()).isEqualTo("lost (its Node was deleted)");
  }

  @Test
  void theOutOfServiceTaintIsLostEvenWhileReady() {
    Node node =
        new NodeBuilder(ready())
            .editSpec()
            .addNewTaint()
            .withKey("node.kubernetes.io/out-of-service")
            .withValue("nodeshutdown")
            .withEffect("NoExecute")
            .withTimeAdded(T)
            .endTaint()
            .endSpec()
            .build();
    NodeHealth health = NodeHealth.of(Optional.of(node));
    assertThat(health.lost()).isTrue();
    assertThat(health.since()).isEqualTo(Instant.parse(T));
    assertThat(health.describe())
        .isEqualTo("lost (it is tainted node.kubernetes.io/out-of-service at " + T + ")");
  }

  @Test
  void readyUnknownIsNotReadyWithWhatTheNodeSays() {
    Node node =
        new NodeBuilder()
            .withNewMetadata()
            .withName("n")
            .endMetadata()
            .withNewStatus()
            .addNewCondition()
            .withType("Ready")
            .withStatus("Unknown")
            .withReason("NodeStatusUnknown")
            .withMessage("Kubelet stopped posting node status.")
            .withLastTransitionTime(T)
            .endCondition()
            .endStatus()
            .build();
    NodeHealth health = NodeHealth.of(Optional.of(node));
    assertThat(health.state()).isEqualTo(NodeHealth.State.NOT_READY);
    assertThat(health.describe())
        .isEqualTo(
            "NotReady since " + T + " (NodeStatusUnknown: Kubelet stopped posting node status.)");
  }

  @Test
  void theUnreachableTaintAloneIsNotReady() {
    Node node =
        new NodeBuilder(ready())
            .editSpec()
            .addNewTaint()
            .withKey("node.kubernetes.io/unreachable")
            .withEffect("NoSchedule")
            .withTimeAdded(T)
            .endTaint()
            .endSpec()
            .build();
    NodeHealth health = NodeHealth.of(Optional.of(node));
    assertThat(health.state()).isEqualTo(NodeHealth.State.NOT_READY);
    assertThat(health.describe())
        .isEqualTo("NotReady since " + T + " (it is tainted node.kubernetes.io/unreachable)");
  }

  @Test
  void aNodeWithoutAReadyConditionOrWithReadyTrueIsReady() {
    assertThat(
            NodeHealth.of(
                    Optional.of(
                        new NodeBuilder().withNewMetadata().withName("n").endMetadata().build()))
                .ready())
        .isTrue();
    assertThat(NodeHealth.of(Optional.of(ready())).ready()).isTrue();
  }

  private static Node ready() {
    return new NodeBuilder()
        .withNewMetadata()
        .withName("n")
        .endMetadata()
        .withNewSpec()
        .endSpec()
        .withNewStatus()
        .addNewCondition()
        .withType("Ready")
        .withStatus("True")
        .withReason("KubeletReady")
        .withLastTransitionTime(T)
        .endCondition()
        .endStatus()
        .build();
  }
}
