package io.thinvol.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.thinvol.e2e.support.Applications;
import io.thinvol.e2e.support.KitNodes;
import io.thinvol.e2e.support.Moves;
import io.thinvol.e2e.support.Names;
import io.thinvol.e2e.support.Resources;
import io.thinvol.e2e.support.Waits;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * Claims that change nodes, as docs/moves.md tells a user: a VolumeMove pre-copies while the
 * application writes and cuts over once it is scaled down, and a node evacuation followed by {@code
 * kubectl drain} brings a StatefulSet's and a Deployment's pods up on the other node, each with its
 * own data. Every move says what the docs say, and a move that succeeds is quiet (no Warning).
 */
@Order(8)
class NodeMoveTest extends E2eSteps {

  private static final Duration LIMIT = Duration.ofMinutes(5);
  private static final String EVACUATE = "thinvol.io/evacuate";

  /**
   * The snapshot controller's second delete of a move snapshot's content finding it gone: v8.6.0
   * reports NotFound there as a failure (docs/moves.md, known issues; fixed upstream after it).
   */
  static final java.util.regex.Pattern CONTENT_DELETE_RACE =
      java.util.regex.Pattern.compile("-(pre|cut): SnapshotContentObjectDeleteError ");

  /** The Events docs/moves.md lists for a move that succeeds, in their order. */
  private static final List<String> SUCCEEDED_EVENTS =
      List.of(
          "Accepted", "PreCopyStarted", "PreCopied", "CutOverStarted", "ClaimRebound", "Succeeded");

  @Test
  @Order(1)
  @DisplayName("VolumeMove: pre-copy while the application writes, cut-over once scaled down")
  void moveWhileWriting() {
    requireBackend();
    try {
      writeAndMove();
    } finally {
      cleanUp(
          () -> world().applications().delete("mover"),
          () -> world().moves().delete("mover", LIMIT),
          () -> CrossNodeTest.deleteClaims("data-mover-0"));
    }
  }

  private static void writeAndMove() {
    String other = world().requireJoinedNode();
    String host = world().settings().hostNode();
    Applications apps = world().applications();
    Moves moves = world().moves();
    String app = "mover";
    String claim = "data-mover-0";
    Pod pod =
        onlyOn(
                other,
                () -> {
                  apps.statefulSet(app, 1, Names.EXT4_CLASS, "1Gi");
                  return apps.awaitReady(app, 1);
                })
            .get(0);
    assertThat(pod.getSpec().getNodeName()).isEqualTo(host);
    long before = awaitLines(pod.getMetadata().getName(), 5);
    String sum = pods().sha256(pod.getMetadata().getName(), "/data/file");
    Path oldImage = Names.image(claims().volumeHandle(claim));

    long start = System.nanoTime();
    moves.create(app, claim, null); // the operator chooses the node
    GenericKubernetesResource waiting = moves.awaitPhase(app, "WaitingForCutOver", LIMIT);
    String preCopiedIn = seconds(start);
    assertThat(field(waiting, "status", "targetNode")).contains(other);
    long during = apps.lastLine(pod.getMetadata().getName());
    assertThat(during).as("lines the application wrote during the pre-copy").isGreaterThan(before);
    kube().describe("volumemove", Names.APPS, app);

    apps.scaleStatefulSet(app, 0);
    apps.awaitGone(app);
    long last = lastLineInImage(oldImage);
    assertThat(last)
        .as("the log's last line as the stopped application left it")
        .isGreaterThanOrEqualTo(during);
    GenericKubernetesResource done = moves.awaitPhase(app, "Succeeded", LIMIT);
    apps.scaleStatefulSet(app, 1);
    Pod moved = apps.awaitReady(app, 1).get(0);
    assertThat(moved.getSpec().getNodeName()).isEqualTo(other);
    String name = moved.getMetadata().getName();
    assertThat(pods().sha256(name, "/data/file")).isEqualTo(sum);
    pods().sh(name, Applications.LOG_WITHOUT_GAP);
    assertThat(lineCount(name))
        .as("every line written before the cut-over is there")
        .isGreaterThan(last);
    Waits.untilTrue(
        "the old image to leave " + host + "'s data dir", LIMIT, () -> !Files.exists(oldImage));
    assertThat(imageOn(other, claims().volumeHandle(claim))).exists();
    kube().awaitEvent("VolumeMove", Names.APPS, app, "Succeeded", EVENT_POSTED);
    kube().describe("volumemove", Names.APPS, app);
    assertThat(moves.reasons(app)).containsSubsequence(SUCCEEDED_EVENTS);
    assertThat(moves.warnings(app, done.getMetadata().getUid()))
        .as("Warning Events of the move")
        .filteredOn(w -> !CONTENT_DELETE_RACE.matcher(w).find())
        .isEmpty();

    figure(
        "pre-copy of "
            + field(done, "status", "bytesCopied").orElse("?")
            + " B at "
            + field(done, "status", "copyRate").orElse("?")
            + " while writing, waiting after "
            + preCopiedIn
            + "; cut-over "
            + field(done, "status", "cutOverDuration").orElse("?")
            + " ("
            + field(done, "status", "deltaBytes").orElse("?")
            + " B changed); pod on "
            + other
            + ", file equal, log "
            + last
            + " lines on, no gap; old image gone; no Warning");
  }

  @Test
  @Order(2)
  @DisplayName(
      "evacuation and drain: a StatefulSet's and a Deployment's pods start on the other node")
  void evacuateAndDrain() {
    requireBackend();
    String other = world().requireJoinedNode();
    String host = world().settings().hostNode();
    KitNodes nodes = world().nodes();
    Applications apps = world().applications();
    Moves moves = world().moves();
    try {
      claims()
          .create(
              "web-data", io.thinvol.e2e.support.Claims.Spec.filesystem(Names.EXT4_CLASS, "256Mi"));
      List<Pod> running =
          onlyOn(
              host,
              () -> {
                apps.statefulSet("db", 3, Names.EXT4_CLASS, "256Mi");
                apps.deployment("web", "web-data");
                List<Pod> started = new java.util.ArrayList<>(apps.awaitReady("db", 3));
                started.addAll(apps.awaitReady("web", 1));
                return started;
              });
      assertThat(running).allMatch(p -> other.equals(p.getSpec().getNodeName()));
      Map<String, String> sums = new HashMap<>();
      for (Pod pod : running) {
        awaitLines(pod.getMetadata().getName(), 3);
        sums.put(claimOf(pod), pods().sha256(pod.getMetadata().getName(), "/data/file"));
      }

      long start = System.nanoTime();
      nodes.annotate(other, EVACUATE, "true");
      List<GenericKubernetesResource> evacuating =
          Waits.until(
              "the evacuation's 4 moves to wait for their cut-over",
              LIMIT,
              () ->
                  java.util.Optional.of(evacuationMoves(other))
                      .filter(m -> m.size() == sums.size())
                      .filter(
                          m ->
                              m.stream()
                                  .allMatch(
                                      v ->
                                          field(v, "status", "phase")
                                              .equals(java.util.Optional.of("WaitingForCutOver")))),
              () ->
                  evacuationMoves(other).stream().map(m -> field(m, "status").orElse("")).toList());
      String preCopiedIn = seconds(start);
      kube().awaitEvent("Node", null, other, "Evacuating", LIMIT);
      kube().describe("node", null, other);
      evacuating.forEach(m -> kube().describe("volumemove", Names.APPS, m.getMetadata().getName()));

      long drainStart = System.nanoTime();
      kube()
          .kubectl("drain", other, "--ignore-daemonsets", "--delete-emptydir-data", "--timeout=5m");
      for (GenericKubernetesResource move : evacuating) {
        String name = move.getMetadata().getName();
        GenericKubernetesResource done = moves.awaitPhase(name, "Succeeded", LIMIT);
        kube().awaitEvent("VolumeMove", Names.APPS, name, "Succeeded", EVENT_POSTED);
        kube().describe("volumemove", Names.APPS, name);
        assertThat(moves.reasons(name))
            .as("Events of " + name)
            .containsSubsequence(SUCCEEDED_EVENTS);
        // Every Warning but the snapshot controller's known one fails the step.
        assertThat(moves.warnings(name, done.getMetadata().getUid()))
            .as("Warnings of " + name)
            .filteredOn(w -> !CONTENT_DELETE_RACE.matcher(w).find())
            .isEmpty();
      }
      List<Pod> after = new java.util.ArrayList<>(apps.awaitReady("db", 3));
      after.addAll(apps.awaitReady("web", 1));
      String runningIn = seconds(drainStart);
      for (Pod pod : after) {
        assertThat(pod.getSpec().getNodeName()).as(pod.getMetadata().getName()).isEqualTo(host);
        assertThat(pods().sha256(pod.getMetadata().getName(), "/data/file"))
            .as("the data of " + claimOf(pod))
            .isEqualTo(sums.get(claimOf(pod)));
        pods().sh(pod.getMetadata().getName(), Applications.LOG_WITHOUT_GAP);
      }
      figure(
          "4 pre-copies waiting "
              + preCopiedIn
              + " after the annotation; drained, every pod Running on "
              + host
              + " with its own data "
              + runningIn
              + " after the drain began; Events as docs/moves.md, no Warning");
    } finally {
      cleanUp(
          () -> nodes.annotate(other, EVACUATE, null),
          () -> nodes.cordon(other, false),
          () -> apps.delete("db"),
          () -> apps.delete("web"),
          () -> evacuationMoves(other).forEach(m -> moves.delete(m.getMetadata().getName(), LIMIT)),
          () -> CrossNodeTest.deleteClaims("data-db-0", "data-db-1", "data-db-2", "web-data"));
    }
  }

  /**
   * Runs {@code start} while {@code elsewhere} is cordoned, so that its pods start on the other
   * node.
   */
  private static <T> T onlyOn(String elsewhere, java.util.function.Supplier<T> start) {
    world().nodes().cordon(elsewhere, true);
    try {
      return start.get();
    } finally {
      world().nodes().cordon(elsewhere, false);
    }
  }

  private static long awaitLines(String pod, long lines) {
    return Waits.until(
        "pod " + pod + " to log " + lines + " lines",
        LIMIT,
        () -> {
          try {
            return java.util.Optional.of(world().applications().lastLine(pod))
                .filter(n -> n >= lines);
          } catch (AssertionError | NumberFormatException notYet) {
            return java.util.Optional.empty();
          }
        });
  }

  /**
   * The last line of the log in a volume's ext4 image, read from the host with debugfs (no mount):
   * what the application had written when it stopped, before the cut-over copies it.
   */
  private static long lastLineInImage(Path image) {
    String log = io.thinvol.e2e.support.Host.run("debugfs", "-R", "cat /log", image.toString());
    return Long.parseLong(log.strip().lines().reduce((a, b) -> b).orElseThrow().trim());
  }

  private static long lineCount(String pod) {
    return Long.parseLong(pods().sh(pod, "wc -l < /data/log").trim());
  }

  private static Path imageOn(String node, String handle) {
    return world()
        .nodes()
        .hostPath(node, Names.DATA_DIR)
        .resolve("volumes")
        .resolve(handle)
        .resolve("disk.img");
  }

  private static String claimOf(Pod pod) {
    return pod.getSpec().getVolumes().get(0).getPersistentVolumeClaim().getClaimName();
  }

  private static List<GenericKubernetesResource> evacuationMoves(String node) {
    return Resources.of(client(), Resources.VOLUME_MOVE)
        .inNamespace(Names.APPS)
        .withLabel("thinvol.io/evacuated-node", node)
        .list()
        .getItems();
  }
}
