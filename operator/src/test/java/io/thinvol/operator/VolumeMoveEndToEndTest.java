package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Quantity;
import io.thinvol.addons.call.DriverCalls;
import io.thinvol.addons.call.GrpcMoveCopier;
import io.thinvol.addons.call.MoveCopier;
import io.thinvol.api.kube.VolumeNodes;
import io.thinvol.api.v1alpha1.MovePhase;
import io.thinvol.api.v1alpha1.VolumeMove;
import io.thinvol.api.v1alpha1.VolumeMoveStatus;
import io.thinvol.driver.preflight.DataFiles;
import io.thinvol.testing.DescribedEvents;
import io.thinvol.testing.StrictApiServer;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A claim written on node-a moved to node-b, end to end on this host: the operator's VolumeMove
 * reconciler (started by hand, or by the evacuation of node-a) calls the real drivers of both nodes
 * through the gRPC MoveCopier, the storage controllers and the kubelet are played against the same
 * drivers ({@link TwoNodeEndToEndTest}). A pod on node-b reads, after the move, what the
 * application wrote on node-a, under the claim's own name.
 */
class VolumeMoveEndToEndTest extends TwoNodeEndToEndTest {

  private static final String CLAIM = "data";
  private static final Duration MOVING = Duration.ofMinutes(4);
  private static final String MOVE_LABEL = "thinvol.io/volume-move";

  private DriverCalls calls;
  private LateCopyAnswer drivers;
  private PlayedPod app;
  private String written;

  @Override
  MoveCopier copier() {
    calls = new DriverCalls(client, NAMESPACE, () -> ReviewedTokens.OPERATOR_TOKEN);
    drivers = new LateCopyAnswer(new GrpcMoveCopier(calls));
    return drivers;
  }

  @AfterEach
  void closeCalls() {
    if (calls != null) {
      calls.close();
    }
  }

  @Test
  void aMovedClaimKeepsItsNameAndHoldsItsDataOnNodeB() throws Exception {
    String oldVolume = applicationOnNodeA();
    String originalUid = claim().getMetadata().getUid();

    VolumeMoves.create(
        client, APPS, "to-b", "  persistentVolumeClaim: data\n  targetNode: node-b\n");
    VolumeMove preCopied = awaitPhase("to-b", MovePhase.WaitingForCutOver);
    assertThat(claim().getMetadata().getUid()).as("untouched while in use").isEqualTo(originalUid);
    app.stop(); // the application scaled down: its claim is unused
    VolumeMove done = awaitPhase("to-b", MovePhase.Succeeded);

    PersistentVolumeClaim moved = claim();
    assertThat(moved.getMetadata().getUid()).isNotEqualTo(originalUid);
    PersistentVolume volume =
        client.persistentVolumes().withName(moved.getSpec().getVolumeName()).get();
    assertThat(VolumeNodes.of(volume)).containsExactly(B);
    readOnNodeB("reader");
    VolumeMoveStatus status = done.getStatus();
    assertThat(status.getSourceNode()).isEqualTo(A);
    assertThat(status.getTargetNode()).isEqualTo(B);
    assertThat(status.getTargetVolume()).isEqualTo(volume.getMetadata().getName());
    assertThat(status.getTargetVolumeHandle())
        .isEqualTo(volume.getSpec().getCsi().getVolumeHandle());
    // Figures the operator asks a driver for with a short deadline: a driver that takes longer
    // (a loaded host) leaves them out, and the move goes on without them.
    reported(status.getBytesTotal()).ifPresent(total -> assertThat(total).isGreaterThan(64 * MIB));
    reported(preCopied.getStatus().getBytesCopied())
        .ifPresent(copied -> assertThat(copied).isGreaterThan(64 * MIB));
    assertThat(bytes(status.getDeltaBytes()))
        .as("nothing written after the pre-copy")
        .isLessThan(MIB);
    assertThat(status.getCutOverDuration()).isNotBlank();
    assertThat(eventReasons(APPS, "to-b"))
        .contains("Accepted", "PreCopied", "CutOverStarted", "ClaimRebound", "Succeeded");
    // The old volume is deleted by node-a's provisioner once its policy is Delete again; the
    // pre-copy's volume by node-b's, the snapshots by node-a's csi-snapshotter.
    try {
      awaitCopying(
          "only the claim and its new volume on node-b left", () -> leftovers(volume).isEmpty());
    } catch (AssertionError e) {
      assertThat(leftovers(volume)).as(e.getMessage()).isEmpty();
    }
    assertThat(oldVolume).isNotEqualTo(volume.getMetadata().getName());
    assertThat(client.v1().events().inNamespace(APPS).list().getItems())
        .as("a move that succeeds is quiet (QuietMoveTest)")
        .filteredOn(e -> e.getType().equals("Warning"))
        .extracting(e -> e.getInvolvedObject().getName() + ": " + e.getReason())
        .isEmpty();
  }

  @Test
  void theCutOverCopiesWhatWasWrittenAfterThePreCopyAndLittleElse() throws Exception {
    applicationOnNodeA();
    VolumeMoves.create(
        client, APPS, "to-b", "  persistentVolumeClaim: data\n  targetNode: node-b\n");
    String later = writtenAfterThePreCopy();
    VolumeMove done = awaitPhase("to-b", MovePhase.Succeeded);

    long delta = bytes(done.getStatus().getDeltaBytes());
    assertThat(delta)
        .as("the 16 MiB written and the filesystem's own few blocks")
        .isBetween(16 * MIB, (long) (16 * MIB * 1.05) + 512 * 1024);
    PlayedPod reader = readOnNodeB("reader");
    assertThat(DataFiles.sha256(reader.mount().resolve("later.bin"))).isEqualTo(later);
    System.out.printf(
        "move e2e: %s bytes in total, %s pre-copied, %d in the cut-over (%s)%n",
        reported(done.getStatus().getBytesTotal()).map(String::valueOf).orElse("(not reported)"),
        reported(done.getStatus().getBytesCopied())
            .map(copied -> String.valueOf(copied - delta))
            .orElse("(not reported)"),
        delta,
        done.getStatus().getCutOverDuration());
  }

  /**
   * Without reflinks (this host's ext4) the cut-over's copy consumes the pre-copy's volume: a
   * source lost between the target's commit and the operator's learning of it leaves that copy the
   * only one on node-b, and the newest.
   */
  @Test
  void aSourceLostOnceTheTargetMadeTheCopyKeepsThatCopy() throws Exception {
    String oldVolume = applicationOnNodeA();
    drivers.withholdNextCopy(() -> client.nodes().withName(A).delete());
    VolumeMove created =
        VolumeMoves.create(
            client, APPS, "to-b", "  persistentVolumeClaim: data\n  targetNode: node-b\n");
    String later = writtenAfterThePreCopy();

    VolumeMove failed = awaitPhase("to-b", MovePhase.Failed);
    assertThat(failed.getStatus().getMessage())
        .startsWith("SourceNodeLost: the source node node-a is lost (its Node was deleted)")
        .endsWith("the claim is bound to its old volume again");
    assertThat(claim().getSpec().getVolumeName()).isEqualTo(oldVolume);
    // (a claim the move deleted may still be there, going)
    List<PersistentVolumeClaim> kept =
        client
            .persistentVolumeClaims()
            .inNamespace(APPS)
            .withLabel(MOVE_LABEL, "to-b")
            .list()
            .getItems()
            .stream()
            .filter(claim -> claim.getMetadata().getDeletionTimestamp() == null)
            .toList();
    for (PersistentVolumeClaim claim : kept) {
      PersistentVolume volume =
          client.persistentVolumes().withName(claim.getSpec().getVolumeName()).get();
      assertThat(nodes.node(B).volumes())
          .as("the volume of the kept claim " + claim.getMetadata().getName())
          .contains(volume.getSpec().getCsi().getVolumeHandle());
    }
    String id = created.getMetadata().getUid().replace("-", "").substring(0, 8);
    String copy = "thinvol-move-" + id + "-cut";
    assertThat(kept)
        .as("the copy kept, the pre-copy it consumed gone")
        .extracting(claim -> claim.getMetadata().getName() + " " + claim.getStatus().getPhase())
        .containsExactly(copy + " Bound");
    PlayedPod reader = PlayedPod.start(client, nodes.node(B), APPS, "reader", copy);
    assertThat(DataFiles.sha256(reader.mount().resolve("data.bin"))).isEqualTo(written);
    assertThat(DataFiles.sha256(reader.mount().resolve("later.bin"))).isEqualTo(later);
    assertThat(
            client.v1().events().inNamespace(APPS).list().getItems().stream()
                .filter(e -> e.getReason().equals("CopyKept"))
                .map(e -> e.getMessage()))
        .singleElement()
        .asString()
        .startsWith("the source node node-a is lost: PersistentVolumeClaim " + copy + " on node")
        .contains("holds the data of PersistentVolumeClaim data as of the cut-over");
  }

  @Test
  void aClaimOfAnEvacuatedNodeIsOnNodeBOnceItsPodIsDrained() throws Exception {
    applicationOnNodeA();
    client
        .nodes()
        .withName(A)
        .edit(
            node -> {
              node.getMetadata().getAnnotations().put(VolumeMove.EVACUATE, "true");
              return node;
            });
    VolumeMove preCopied =
        awaitCopying(
            "the evacuation's move pre-copied",
            () ->
                client
                    .resources(VolumeMove.class)
                    .inNamespace(APPS)
                    .withLabel(VolumeMove.EVACUATED_NODE, A)
                    .list()
                    .getItems()
                    .stream()
                    .filter(move -> move.getStatus() != null)
                    .filter(move -> move.getStatus().getPhase() == MovePhase.WaitingForCutOver)
                    .findFirst()
                    .orElse(null));
    assertThat(preCopied.getSpec().getTargetNode()).as("chosen by the operator").isNull();
    assertThat(preCopied.getStatus().getTargetNode()).isEqualTo(B);

    app.stop(); // kubectl drain node-a evicts the pod
    awaitPhase(preCopied.getMetadata().getName(), MovePhase.Succeeded);

    readOnNodeB("after-drain");
    // kubectl describe node lists the Events whose uid is the node's name, as the kubelet's
    awaitCopying(
        "Evacuated on node-a",
        () -> DescribedEvents.reasons(client, "Node", null, A, A).contains("Evacuated"));
  }

  /**
   * The application on node-a: its claim provisioned there, 64 MiB and a note written by its pod,
   * which keeps running. Returns the claim's PersistentVolume.
   */
  private String applicationOnNodeA() throws Exception {
    provisioned(CLAIM, A, null);
    app = PlayedPod.start(client, nodes.node(A), APPS, "app", CLAIM);
    written = DataFiles.writeRandom(app.mount().resolve("data.bin"), 64 * MIB);
    java.nio.file.Files.writeString(app.mount().resolve("note.txt"), "written on node-a");
    app.sync();
    return claim().getSpec().getVolumeName();
  }

  /** 16 MiB the application writes once the move pre-copied, before it stops; their digest. */
  private String writtenAfterThePreCopy() throws Exception {
    awaitPhase("to-b", MovePhase.WaitingForCutOver);
    String later = DataFiles.writeRandom(app.mount().resolve("later.bin"), 16 * MIB);
    app.sync();
    app.stop();
    return later;
  }

  /** A pod on node-b using the claim reads what the application wrote on node-a. */
  private PlayedPod readOnNodeB(String pod) throws Exception {
    PlayedPod reader = PlayedPod.start(client, nodes.node(B), APPS, pod, CLAIM);
    assertThat(DataFiles.sha256(reader.mount().resolve("data.bin"))).isEqualTo(written);
    assertThat(reader.mount().resolve("note.txt")).hasContent("written on node-a");
    return reader;
  }

  private PersistentVolumeClaim claim() {
    return client.persistentVolumeClaims().inNamespace(APPS).withName(CLAIM).get();
  }

  private VolumeMove awaitPhase(String move, MovePhase phase) {
    try {
      return VolumeMoves.awaitPhase(client, APPS, move, phase, MOVING);
    } catch (AssertionError e) {
      throw new AssertionError(
          e.getMessage() + "; the played controllers met: " + controllers.failures(), e);
    }
  }

  /** What is left of the claim's old volume and the move's temporaries, but the new volume. */
  private List<String> leftovers(PersistentVolume moved) {
    List<String> left = new java.util.ArrayList<>();
    nodes.node(A).volumes().forEach(id -> left.add("volume " + id + " on node-a"));
    nodes.node(A).snapshots().forEach(id -> left.add("snapshot " + id + " on node-a"));
    nodes.node(B).volumes().stream()
        .filter(id -> !id.equals(moved.getSpec().getCsi().getVolumeHandle()))
        .forEach(id -> left.add("volume " + id + " on node-b"));
    names(client.persistentVolumes().list().getItems()).stream()
        .filter(name -> !name.equals(moved.getMetadata().getName()))
        .forEach(name -> left.add("PersistentVolume " + name));
    names(client.persistentVolumeClaims().inNamespace(APPS).list().getItems()).stream()
        .filter(name -> !name.equals(CLAIM))
        .forEach(name -> left.add("PersistentVolumeClaim " + name));
    names(NodeSnapshotter.objects(client, "VolumeSnapshot").inNamespace(APPS).list().getItems())
        .forEach(name -> left.add("VolumeSnapshot " + name));
    names(NodeSnapshotter.objects(client, "VolumeSnapshotContent").list().getItems())
        .forEach(name -> left.add("VolumeSnapshotContent " + name));
    return left;
  }

  private static List<String> names(List<? extends HasMetadata> objects) {
    return objects.stream().map(o -> o.getMetadata().getName()).toList();
  }

  private static long bytes(Quantity quantity) {
    assertThat(quantity).as("a figure the move always reports").isNotNull();
    return quantity.getNumericalAmount().longValueExact();
  }

  private static Optional<Long> reported(Quantity quantity) {
    return Optional.ofNullable(quantity).map(VolumeMoveEndToEndTest::bytes);
  }

  /** The cut-over's admission policy denies the operator's dry runs: no refusal. */
  @Override
  List<StrictApiServer.Decision> refusedOperatorRequests() {
    return VolumeMoves.withoutCutOverDenials(super.refusedOperatorRequests());
  }
}
