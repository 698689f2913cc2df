package io.thinvol.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.thinvol.e2e.support.Claims;
import io.thinvol.e2e.support.KitNodes;
import io.thinvol.e2e.support.Moves;
import io.thinvol.e2e.support.Names;
import io.thinvol.e2e.support.OperatorLeader;
import io.thinvol.e2e.support.Resources;
import io.thinvol.e2e.support.Waits;
import io.thinvol.e2e.support.World;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * Nodes that go away, as docs/moves.md and docs/operator.md tell an admin what follows: the kit's
 * second node is cut off its network (its veth down, at once: a partition) and then stopped (its
 * kubelet, containerd, driver and pods killed, its loop devices detached, as a power loss) in the
 * middle of a move's pre-copy and of its cut-over, as a move's source during a pre-copy, and for
 * good (its Node deleted). Each time the move or the claim says within a minute which node is gone,
 * the application's data is never lost and no claim is left bound to nothing. The first cut takes
 * the operator's leading replica with it: the standby on the other node tells.
 */
@Order(11)
class NodeLossTest extends E2eSteps {

  private static final Duration SAID_WITHIN = Duration.ofSeconds(90);
  private static final Duration LIMIT = Duration.ofMinutes(5);

  /** What the suite sets on the backend: a node back within it lets the move go on. */
  private static final int NODE_NOT_READY_SECONDS = 240;

  /** The shortest a cut-over may keep failing before it rolls back. */
  private static final int CUT_OVER_DEADLINE_SECONDS = 60;

  @BeforeAll
  static void shortDeadlines() {
    if (noBackend()) {
      return; // each step says why it is skipped
    }
    movesSettings(
        Map.of(
            "nodeNotReadySeconds", NODE_NOT_READY_SECONDS,
            "cutOverDeadlineSeconds", CUT_OVER_DEADLINE_SECONDS));
  }

  @AfterAll
  static void defaultDeadlines() {
    if (noBackend()) {
      return;
    }
    java.util.HashMap<String, Object> unset = new java.util.HashMap<>();
    unset.put("nodeNotReadySeconds", null);
    unset.put("cutOverDeadlineSeconds", null);
    movesSettings(unset);
  }

  @Test
  @Order(1)
  @DisplayName(
      "target lost during a pre-copy with the operator's leader, and back: the standby says so, then"
          + " the move goes on")
  void targetLostDuringPreCopy() {
    requireBackend();
    String other = world().requireJoinedNode();
    try {
      OperatorLeader operator = new OperatorLeader(client());
      String lostLeader = operator.leadOn(other, LIMIT).getMetadata().getName();
      String claim = "lost-target";
      String sum = writtenOn(world().settings().hostNode(), claim, "writer-1", 256);
      Moves moves = world().moves();
      moves.create(claim, claim, other);
      moves.awaitPhase(claim, "PreCopying", LIMIT);
      long start = System.nanoTime();
      cutOff(other);
      Event said = kube().awaitEvent("VolumeMove", Names.APPS, claim, "NodeNotReady", SAID_WITHIN);
      String saidIn = seconds(start);
      assertThat(said.getMessage()).contains(other);
      assertThat(operator.leader())
          .as("the operator's leader after its node %s was cut off", other)
          .hasValueSatisfying(p -> assertThat(p.getSpec().getNodeName()).isNotEqualTo(other));
      GenericKubernetesResource move = moves.get(claim);
      assertThat(condition(move, "NodeNotReady")).map(c -> c.get("status")).contains("True");
      kube().describe("volumemove", Names.APPS, claim);
      assertThat(pods().sha256("writer-1", "/data/file"))
          .as("the application's data")
          .isEqualTo(sum);

      world().nodes().powerOn(other);
      kube().awaitEvent("VolumeMove", Names.APPS, claim, "NodeReady", LIMIT);
      moves.awaitPhase(claim, "WaitingForCutOver", LIMIT);
      pods().delete("writer-1");
      moves.awaitPhase(claim, "Succeeded", LIMIT);
      pods().on(other).mounting("reader-1", Map.of(claim, "/data"));
      assertThat(pods().sha256("reader-1", "/data/file")).isEqualTo(sum);
      figure(
          "the leader "
              + lostLeader
              + " cut off with the target; NodeNotReady said by the standby "
              + saidIn
              + " after the cut; node back, the move went on and Succeeded; data equal on "
              + other);
    } finally {
      cleanUp(
          () -> world().nodes().restore(other),
          () -> pods().delete("writer-1"),
          () -> pods().delete("reader-1"),
          () -> world().moves().delete("lost-target", LIMIT),
          () -> CrossNodeTest.deleteClaims("lost-target"));
    }
  }

  @Test
  @Order(2)
  @DisplayName("target lost during a cut-over: the move rolls back, the claim on its old volume")
  void targetLostDuringCutOver() {
    requireBackend();
    String other = world().requireJoinedNode();
    try {
      String host = world().settings().hostNode();
      String claim = "lost-at-cut";
      String sum = writtenOn(host, claim, "writer-2", 64);
      String oldVolume = claims().get(claim).getSpec().getVolumeName();
      Moves moves = world().moves();
      moves.create(claim, claim, other);
      moves.awaitPhase(claim, "WaitingForCutOver", LIMIT);
      // A change the cut-over has to send; then the target is cut off while it still counts as
      // Ready, and the application stops: the cut-over starts and cannot reach the target.
      pods().sh("writer-2", "dd if=/dev/urandom of=/data/late bs=1M count=32 2>/dev/null && sync");
      String late = pods().sha256("writer-2", "/data/late");
      cutOff(other);
      long start = System.nanoTime();
      pods().delete("writer-2");
      moves.awaitPhase(claim, "CuttingOver", LIMIT);
      kube().awaitEvent("VolumeMove", Names.APPS, claim, "NodeNotReady", SAID_WITHIN);
      String saidIn = seconds(start);
      GenericKubernetesResource failed = moves.awaitPhase(claim, "Failed", LIMIT);
      String rolledBackIn = seconds(start);
      kube().awaitEvent("VolumeMove", Names.APPS, claim, "RolledBack", EVENT_POSTED);
      assertThat(moves.reasons(claim)).contains("RollingBack", "RolledBack");
      kube().describe("volumemove", Names.APPS, claim);
      assertThat(claims().awaitVolume(claim).getMetadata().getName())
          .as("the claim bound to its old volume again")
          .isEqualTo(oldVolume);
      pods().mounting("reader-2", Map.of(claim, "/data"));
      assertThat(pods().sha256("reader-2", "/data/file")).isEqualTo(sum);
      assertThat(pods().sha256("reader-2", "/data/late"))
          .as("the change made before the cut-over")
          .isEqualTo(late);

      world().nodes().powerOn(other);
      figure(
          "NodeNotReady said "
              + saidIn
              + " after the cut; rolled back "
              + rolledBackIn
              + " after it ("
              + field(failed, "status", "message").orElse("?")
              + "); claim on its old volume, data and the late change equal");
    } finally {
      cleanUp(
          () -> world().nodes().restore(other),
          () -> pods().delete("writer-2"),
          () -> pods().delete("reader-2"),
          () -> world().moves().delete("lost-at-cut", LIMIT),
          () -> CrossNodeTest.deleteClaims("lost-at-cut"));
    }
  }

  @Test
  @Order(3)
  @DisplayName("source lost during a pre-copy and back: the move says so, then goes on")
  void sourceLostDuringPreCopy() {
    requireBackend();
    String other = world().requireJoinedNode();
    try {
      String host = world().settings().hostNode();
      String claim = "lost-source";
      String sum = writtenOn(other, claim, "writer-3", 256);
      Moves moves = world().moves();
      moves.create(claim, claim, host);
      moves.awaitPhase(claim, "PreCopying", LIMIT);
      long start = System.nanoTime();
      cutOff(other);
      Event said = kube().awaitEvent("VolumeMove", Names.APPS, claim, "NodeNotReady", SAID_WITHIN);
      String saidIn = seconds(start);
      assertThat(said.getMessage()).contains(other);
      kube().describe("volumemove", Names.APPS, claim);

      world().nodes().powerOn(other);
      pods().on(other).awaitReady("writer-3"); // the node's kubelet starts its pods again
      assertThat(pods().sha256("writer-3", "/data/file")).isEqualTo(sum);
      moves.awaitPhase(claim, "WaitingForCutOver", LIMIT);
      pods().delete("writer-3");
      moves.awaitPhase(claim, "Succeeded", LIMIT);
      pods().mounting("reader-3", Map.of(claim, "/data"));
      assertThat(pods().sha256("reader-3", "/data/file")).isEqualTo(sum);
      figure(
          "NodeNotReady said "
              + saidIn
              + " after the cut; source back, the move Succeeded; data equal");
    } finally {
      cleanUp(
          () -> world().nodes().restore(other),
          () -> pods().delete("writer-3"),
          () -> pods().delete("reader-3"),
          () -> world().moves().delete("lost-source", LIMIT),
          () -> CrossNodeTest.deleteClaims("lost-source"));
    }
  }

  @Test
  @Order(4)
  @DisplayName("a node gone for good: its claims and the StorageBackend say so")
  void nodeGoneForGood() {
    requireBackend();
    String other = world().requireJoinedNode();
    try {
      String claim = "stranded";
      writtenOn(other, claim, "writer-4", 16);
      long start = System.nanoTime();
      world().nodes().powerOff(other);
      kube().kubectl("delete", "node", other);
      Event lost =
          kube().awaitEvent("PersistentVolumeClaim", Names.APPS, claim, "NodeLost", SAID_WITHIN);
      String saidIn = seconds(start);
      assertThat(lost.getType()).isEqualTo("Warning");
      assertThat(lost.getMessage()).contains(other);
      Map<String, Object> reported =
          Waits.until(
              "StorageBackend " + Names.BACKEND + " to report the lost node",
              SAID_WITHIN,
              () ->
                  condition(
                          get(Resources.STORAGE_BACKEND, null, Names.BACKEND), "VolumesOnLostNodes")
                      .filter(c -> "True".equals(c.get("status"))));
      assertThat(String.valueOf(reported.get("message"))).contains(other).contains(claim);
      String describe = kube().describe("persistentvolumeclaim", Names.APPS, claim).orElse("");
      assertThat(describe).as("kubectl describe of the claim").contains("NodeLost");
      kube().describe("storagebackend", null, Names.BACKEND);

      world().nodes().powerOn(other); // the same machine back: the kubelet registers the Node again
      Waits.untilTrue(
          "the lost node's report to clear",
          LIMIT,
          () ->
              condition(get(Resources.STORAGE_BACKEND, null, Names.BACKEND), "VolumesOnLostNodes")
                  .map(c -> !"True".equals(c.get("status")))
                  .orElse(true));
      figure(
          "Warning NodeLost on the claim and VolumesOnLostNodes on the StorageBackend "
              + saidIn
              + " after the node's deletion; cleared once it registered again");
    } finally {
      cleanUp(
          () -> world().nodes().restore(other),
          () -> pods().delete("writer-4"),
          () -> CrossNodeTest.deleteClaims("stranded"));
    }
  }

  /** A claim on {@code node} with a pod that wrote {@code mib} MiB to it; the data's checksum. */
  private static String writtenOn(String node, String claim, String pod, int mib) {
    claims().create(claim, Claims.Spec.filesystem(Names.EXT4_CLASS, "1Gi"));
    pods().on(node).mounting(pod, Map.of(claim, "/data"));
    pods().sh(pod, "dd if=/dev/urandom of=/data/file bs=1M count=" + mib + " 2>/dev/null && sync");
    return pods().sha256(pod, "/data/file");
  }

  /** The node cut off its network at once (a partition), then stopped as a power loss stops it. */
  private static void cutOff(String node) {
    KitNodes nodes = world().nodes();
    nodes.partition(node);
    nodes.powerOff(node);
  }

  /** No cluster (the build's own test run) or no StorageBackend Ready to set. */
  private static boolean noBackend() {
    return World.current() == null || World.current().recalled("backend.ready").isEmpty();
  }

  private static void movesSettings(Map<String, Object> moves) {
    client()
        .resources(io.thinvol.api.v1alpha1.StorageBackend.class)
        .withName(Names.BACKEND)
        .patch(
            io.fabric8.kubernetes.client.dsl.base.PatchContext.of(
                io.fabric8.kubernetes.client.dsl.base.PatchType.JSON_MERGE),
            client().getKubernetesSerialization().asJson(Map.of("spec", Map.of("moves", moves))));
  }
}
