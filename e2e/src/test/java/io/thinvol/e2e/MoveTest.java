package io.thinvol.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.thinvol.addons.call.MoveCopier.SnapshotOf;
import io.thinvol.addons.call.MoveCopier.Taken;
import io.thinvol.addons.resolve.DriverEndpoint;
import io.thinvol.e2e.support.Claims;
import io.thinvol.e2e.support.Names;
import io.thinvol.e2e.support.OperatorCalls;
import io.thinvol.e2e.support.Resources;
import io.thinvol.e2e.support.Waits;
import io.thinvol.operator.model.ImportedSnapshot;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * VolumeMoves and node evacuation where the host's node is the only one a volume can go to (a node
 * the kit joined is cordoned meanwhile): a move to the claim's own node is refused, a move with no
 * other node to go to waits, an evacuation of the only node makes its moves and withdraws them when
 * the annotation goes; through all of it the application's pod keeps running on its unchanged
 * volume. The data's crossing to another node is NodeMoveTest's.
 */
@Order(6)
class MoveTest extends E2eSteps {

  private static final String CLAIM = "moving";
  private static final String POD = "mover";
  private static final String FILE = "/data/file";
  private static final String CUT = "e2e-move-cut";
  private static final String BASE = "e2e-move-base";
  private static final Duration LIMIT = Duration.ofMinutes(2);

  @Test
  @Order(1)
  @DisplayName("VolumeMove to the claim's own node refused")
  void toItsOwnNode() {
    requireBackend();
    claims().create(CLAIM, Claims.Spec.filesystem(Names.EXT4_CLASS, "256Mi"));
    pods().mounting(POD, Map.of(CLAIM, "/data"));
    pods().sh(POD, "dd if=/dev/urandom of=" + FILE + " bs=1M count=16 2>/dev/null && sync");
    world().remember("move.sha256", pods().sha256(POD, FILE));
    String volume = claims().get(CLAIM).getSpec().getVolumeName();
    world().remember("move.volume", volume);
    String node = pods().awaitReady(POD).getSpec().getNodeName();
    world().remember("move.node", node);

    long start = System.nanoTime();
    createMove("to-self", node);
    GenericKubernetesResource move = awaitPhase("to-self", "Failed");
    kube().awaitEvent("VolumeMove", Names.APPS, "to-self", "Refused", LIMIT);
    kube().describe("volumemove", Names.APPS, "to-self");
    assertUntouched();
    deleteMove("to-self");
    figure(
        "Failed in "
            + seconds(start)
            + ": "
            + field(move, "status", "message").orElse("?")
            + "; claim, volume and pod unchanged");
  }

  @Test
  @Order(2)
  @DisplayName("VolumeMove with no other node waits in Pending")
  void noOtherNode() {
    alone(MoveTest::noOtherNodeAlone);
  }

  private static void noOtherNodeAlone() {
    String node = world().require("move.node");
    long start = System.nanoTime();
    createMove("anywhere", null);
    GenericKubernetesResource move = awaitPhase("anywhere", "Pending");
    assertThat(String.valueOf(field(move, "status", "message").orElse("")))
        .contains("no node can take the volume");
    assertThat(String.valueOf(field(move, "status", "message").orElse(""))).contains(node);
    kube().describe("volumemove", Names.APPS, "anywhere");
    deleteMove("anywhere");
    assertNoTemporaries();
    assertUntouched();
    figure("Pending in " + seconds(start) + "; deleted, nothing of it left");
  }

  @Test
  @Order(3)
  @DisplayName("evacuation of the only node: moves made, then withdrawn")
  void evacuation() {
    alone(MoveTest::evacuationAlone);
  }

  private static void evacuationAlone() {
    String node = world().require("move.node");
    String volume = world().require("move.volume");
    // A move an earlier step left (it failed before deleting it) would keep the claim: the
    // evacuation leaves it to that move and makes none of its own.
    assertThat(movesOfClaim())
        .as("VolumeMoves of claim " + CLAIM + " left by earlier steps")
        .isEmpty();
    long start = System.nanoTime();
    annotateNode(node, "true");
    String name = "evacuate-" + volume;
    GenericKubernetesResource move;
    try {
      move = awaitPhase(name, "Pending");
      assertThat(move.getMetadata().getLabels()).containsEntry("thinvol.io/evacuated-node", node);
      kube().awaitEvent("Node", null, node, "Evacuating", LIMIT);
      kube().describe("node", null, node);
    } finally {
      annotateNode(node, null);
    }
    Waits.untilTrue(
        "the evacuation's moves to be withdrawn",
        LIMIT,
        () ->
            Resources.of(client(), Resources.VOLUME_MOVE)
                .inAnyNamespace()
                .withLabel("thinvol.io/evacuated-node", node)
                .list()
                .getItems()
                .isEmpty());
    kube().awaitEvent("Node", null, node, "EvacuationStopped", LIMIT);
    assertNoTemporaries();
    assertUntouched();
    figure(
        "move "
            + name
            + " Pending ("
            + field(move, "status", "message").orElse("?")
            + "), withdrawn with the annotation in "
            + seconds(start));
  }

  /**
   * What a move's cut-over asks of the real driver and sidecars, on one node, with the operator's
   * own calls and objects: once no pod uses the claim, S2 taken by the node's driver at the
   * operator's request (MoveCopy/Snapshot on its TLS port, the operator's token), idempotent by
   * name; imported as a pre-provisioned content labelled for the node's csi-snapshotter, which the
   * snapshot-controller binds and the sidecar reports ready; a claim restored from it with no pod,
   * on the node its {@code volume.kubernetes.io/selected-node} names (as the pre-copy's base is
   * provisioned), holding the data; and deleting the VolumeSnapshot deleting S2 on the node.
   */
  @Test
  @Order(4)
  @DisplayName("cut-over parts: S2 taken by the driver, imported, restored, deleted")
  void cutOverParts() throws Exception {
    String node = world().require("move.node");
    pods().delete(POD); // at a cut-over no pod uses the claim
    String handle = claims().volumeHandle(CLAIM);
    SnapshotOf s2 = new SnapshotOf(CUT, handle);
    try (OperatorCalls operator = new OperatorCalls(client())) {
      DriverEndpoint driver = operator.driverOn(node);
      long start = System.nanoTime();
      Taken taken = OperatorCalls.await(operator.copier().snapshot(driver, s2, LIMIT), LIMIT);
      String takenIn = seconds(start);
      assertThat(OperatorCalls.await(operator.copier().snapshot(driver, s2, LIMIT), LIMIT))
          .isEqualTo(taken);
      ImportedSnapshot imported =
          new ImportedSnapshot(
              CUT, Names.APPS, Names.DRIVER, taken.snapshotId(), node, Names.BACKEND, Map.of());
      kube().apply(imported.content());
      kube().apply(imported.snapshot());
      Waits.until(
          "VolumeSnapshot " + CUT + " to be readyToUse",
          LIMIT,
          () ->
              Optional.ofNullable(get(Resources.VOLUME_SNAPSHOT, Names.APPS, CUT))
                  .filter(v -> field(v, "status", "readyToUse").equals(Optional.of(true))),
          () -> field(get(Resources.VOLUME_SNAPSHOT, Names.APPS, CUT), "status").orElse("none"));
      String readyIn = seconds(start);
      claims()
          .create(
              BASE, Claims.Spec.filesystem(Names.EXT4_CLASS, "256Mi").from("VolumeSnapshot", CUT));
      annotateClaim(BASE, "volume.kubernetes.io/selected-node", node);
      claims().awaitVolume(BASE);
      String boundIn = seconds(start);
      pods().mounting("base-reader", Map.of(BASE, "/data"));
      assertThat(pods().sha256("base-reader", FILE)).isEqualTo(world().require("move.sha256"));
      pods().delete("base-reader");
      client().persistentVolumeClaims().inNamespace(Names.APPS).withName(BASE).delete();
      Resources.of(client(), Resources.VOLUME_SNAPSHOT)
          .inNamespace(Names.APPS)
          .withName(CUT)
          .delete();
      Waits.untilTrue(
          "the imported content to be deleted with its snapshot",
          LIMIT,
          () -> get(Resources.VOLUME_SNAPSHOT_CONTENT, null, CUT) == null);
      assertThat(OperatorCalls.await(operator.copier().dropSnapshot(driver, s2, LIMIT), LIMIT))
          .as("S2 still on the node after its VolumeSnapshot was deleted")
          .isFalse();
      figure(
          "S2 taken in "
              + takenIn
              + ", imported and ready by "
              + readyIn
              + ", podless restore bound by "
              + boundIn
              + "; sha256 equal; deleted on the node with its VolumeSnapshot");
    }
  }

  private static void createMove(String name, String targetNode) {
    world().moves().create(name, CLAIM, targetNode);
  }

  private static GenericKubernetesResource awaitPhase(String name, String phase) {
    return world().moves().awaitPhase(name, phase, LIMIT);
  }

  private static List<String> movesOfClaim() {
    return Resources.of(client(), Resources.VOLUME_MOVE)
        .inNamespace(Names.APPS)
        .list()
        .getItems()
        .stream()
        .filter(m -> field(m, "spec", "persistentVolumeClaim").equals(Optional.of(CLAIM)))
        .map(m -> m.getMetadata().getName())
        .toList();
  }

  private static void deleteMove(String name) {
    world().moves().delete(name, LIMIT);
  }

  /** As {@code kubectl annotate node}; null removes the annotation. */
  private static void annotateNode(String node, String value) {
    world().nodes().annotate(node, "thinvol.io/evacuate", value);
  }

  /**
   * Runs a step that needs the host's node to be the only one a volume can go to: a node the kit
   * joined is cordoned meanwhile (the operator moves volumes only to schedulable nodes).
   */
  private static void alone(Runnable step) {
    java.util.Optional<String> joined = world().nodes().joinedNode();
    joined.ifPresent(n -> world().nodes().cordon(n, true));
    try {
      step.run();
    } finally {
      joined.ifPresent(n -> world().nodes().cordon(n, false));
    }
  }

  /** The application saw nothing: same volume, its pod running, its data the same. */
  private static void assertUntouched() {
    assertThat(claims().get(CLAIM).getSpec().getVolumeName())
        .isEqualTo(world().require("move.volume"));
    Pod pod = pods().awaitReady(POD);
    assertThat(pod.getStatus().getPhase()).isEqualTo("Running");
    assertThat(pods().sha256(POD, FILE)).isEqualTo(world().require("move.sha256"));
  }

  /** No claim, snapshot or admission policy a move makes is left behind. */
  private static void assertNoTemporaries() {
    List<String> claims =
        client().persistentVolumeClaims().inNamespace(Names.APPS).list().getItems().stream()
            .map(c -> c.getMetadata().getName())
            .filter(n -> n.startsWith("thinvol-move-"))
            .toList();
    List<String> snapshots =
        Resources.of(client(), Resources.VOLUME_SNAPSHOT)
            .inNamespace(Names.APPS)
            .list()
            .getItems()
            .stream()
            .map(s -> s.getMetadata().getName())
            .filter(n -> n.startsWith("thinvol-move-"))
            .toList();
    List<String> policies =
        client()
            .admissionRegistration()
            .v1()
            .validatingAdmissionPolicies()
            .list()
            .getItems()
            .stream()
            .map(p -> p.getMetadata().getName())
            .filter(n -> n.startsWith("thinvol-move-"))
            .toList();
    assertThat(claims).as("claims a move made").isEmpty();
    assertThat(snapshots).as("snapshots a move made").isEmpty();
    assertThat(policies).as("admission policies a move made").isEmpty();
  }
}
