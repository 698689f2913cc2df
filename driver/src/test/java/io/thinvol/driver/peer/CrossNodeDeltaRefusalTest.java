package io.thinvol.driver.peer;

import static io.thinvol.driver.GrpcAssertions.assertCode;
import static io.thinvol.driver.GrpcAssertions.message;
import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.DeleteSnapshotRequest;
import csi.v1.VolumeCapability;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.grpc.Status;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.client.ContentSources;
import io.thinvol.driver.client.CsiClient;
import io.thinvol.driver.preflight.DataFiles;
import io.thinvol.peer.v1.CopyInResponse;
import io.thinvol.peer.v1.SpaceResponse;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * What a delta copy-in refuses, and how it fails: only the operator's account may ask for one; the
 * base must be a volume of node-b made from a snapshot, attached nowhere and unchanged since;
 * node-a must hold the base's snapshot, of the same volume as the one asked for, and the claim must
 * ask for that one. A sender that dies mid-stream leaves node-b's base as it was and nothing new. A
 * volume's space and a cut-over's snapshot are the operator's to ask too, of the node that holds
 * it.
 */
@EnableKubernetesMockClient(https = false)
class CrossNodeDeltaRefusalTest {

  private static final long MIB = 1L << 20;
  private static final VolumeCapability EXT4 = Capabilities.mount("ext4");

  KubernetesMockServer server;

  @AutoClose private PeerDrivers nodes;

  @Test
  void onlyTheOperatorGetsADeltaOnlyOntoAnUnchangedBaseOfTheSameVolumeForAClaimAskingForIt()
      throws Exception {
    nodes = new PeerDrivers(server);
    nodes.servePodList();
    CopySources sources = new CopySources(server);
    NodeVolumes volumes = new NodeVolumes(nodes, EXT4);
    String origin = csi("node-a").createVolume("origin", 64 * MIB, EXT4, null);
    String other = csi("node-a").createVolume("other", 64 * MIB, EXT4, null);
    String s1 = csi("node-a").createSnapshot("s1", origin);
    String s2 = csi("node-a").createSnapshot("s2", origin);
    String ofOther = csi("node-a").createSnapshot("of-other", other);
    sources.restoreOf("pre", "s1", s1);
    sources.restoreOf("moved", "s2", s2);
    sources.restoreOf("wrong", "of-other", ofOther);
    String base = volumes.restore("node-b", "pre", s1);
    String empty = csi("node-b").createVolume("empty", 64 * MIB, EXT4, null);
    String operator = nodes.operatorToken();

    assertCode(Status.Code.UNAUTHENTICATED, () -> copyIn(null, s2, base, "moved"));
    // The peers pull from each other; they do not make each other pull.
    assertCode(Status.Code.PERMISSION_DENIED, () -> copyIn(nodes.nodeToken(), s2, base, "moved"));
    assertCode(
        Status.Code.PERMISSION_DENIED,
        () -> copyIn(nodes.tokenOf(PeerDrivers.NAMESPACE + ":intruder"), s2, base, "moved"));
    String unknown = "vol-0123456789abcdef0123456789abcdef";
    assertThat(
            message(
                assertCode(Status.Code.NOT_FOUND, () -> copyIn(operator, s2, unknown, "moved"))))
        .contains("base volume " + unknown + " does not exist on node node-b");
    assertThat(
            message(
                assertCode(
                    Status.Code.FAILED_PRECONDITION, () -> copyIn(operator, s2, empty, "moved"))))
        .contains("not made from a snapshot");
    assertThat(
            message(
                assertCode(
                    Status.Code.INVALID_ARGUMENT, () -> copyIn(operator, ofOther, base, "wrong"))))
        .contains("same volume");
    assertThat(
            message(
                assertCode(
                    Status.Code.PERMISSION_DENIED, () -> copyIn(operator, s2, base, "wrong"))))
        .contains("does not ask for a copy of snapshot " + s2);

    // A base written since it was made no longer reads as its snapshot: the result is refused.
    String baseSum = DataFiles.sha256(nodes.image("node-b", base));
    DataFiles.writeRandom(volumes.stageAndPublish("node-b", base).resolve("later.bin"), MIB);
    volumes.unpublishAndUnstage("node-b", base);
    assertThat(message(assertCode(Status.Code.INTERNAL, () -> copyIn(operator, s2, base, "moved"))))
        .contains("does not read as the snapshot")
        .contains("nothing was kept");
    assertThat(DataFiles.sha256(nodes.image("node-b", base))).isNotEqualTo(baseSum);

    csi("node-a")
        .controller()
        .deleteSnapshot(DeleteSnapshotRequest.newBuilder().setSnapshotId(s1).build());
    assertThat(
            message(
                assertCode(
                    Status.Code.FAILED_PRECONDITION, () -> copyIn(operator, s2, base, "moved"))))
        .contains("not base snapshot " + s1);
    assertThat(volumes.entries("node-b", "volumes")).containsExactlyInAnyOrder(base, empty);
  }

  @Test
  void aVolumesSpaceIsTheOperatorsToAskAndOnlyOfTheNodeThatHoldsIt() throws Exception {
    nodes = new PeerDrivers(server);
    String origin = csi("node-a").createVolume("origin", 64 * MIB, EXT4, null);
    String operator = nodes.operatorToken();

    assertThat(space(operator, "node-a", origin).getSizeBytes()).isEqualTo(64 * MIB);
    assertCode(Status.Code.UNAUTHENTICATED, () -> space(null, "node-a", origin));
    assertCode(Status.Code.PERMISSION_DENIED, () -> space(nodes.nodeToken(), "node-a", origin));
    assertCode(
        Status.Code.PERMISSION_DENIED,
        () -> space(nodes.tokenOf(PeerDrivers.NAMESPACE + ":intruder"), "node-a", origin));
    // Only the node that holds a volume answers for it; no node asks another.
    assertThat(message(assertCode(Status.Code.NOT_FOUND, () -> space(operator, "node-b", origin))))
        .contains("volume " + origin + " does not exist on node node-b");
    assertCode(
        Status.Code.NOT_FOUND,
        () -> space(operator, "node-a", "vol-0123456789abcdef0123456789abcdef"));
    assertCode(Status.Code.NOT_FOUND, () -> space(operator, "node-a", "../origin"));
    assertThat(
            message(assertCode(Status.Code.INVALID_ARGUMENT, () -> space(operator, "node-a", ""))))
        .contains("volume_id is required");
  }

  @Test
  void aSenderKilledMidStreamLeavesTheBaseAsItWasAndNothingNew() throws Exception {
    nodes = new PeerDrivers(server, List.of("node-b"));
    StandInPeer nodeA = nodes.standIn("node-a", StandInPeer.Ending.KILLED_MID_STREAM);
    nodes.servePodList();
    NodeVolumes volumes = new NodeVolumes(nodes, EXT4);
    // A base of node-b's own making: a restore of a snapshot of node-b.
    String origin = csi("node-b").createVolume("origin", StandInPeer.SIZE, EXT4, null);
    String snapshot = csi("node-b").createSnapshot("s1", origin);
    String base = volumes.create("node-b", "base", ContentSources.snapshotSource(snapshot), null);
    String baseSum = DataFiles.sha256(nodes.image("node-b", base));
    String remote = "snap-0123456789abcdef0123456789abcdef";
    String operator = nodes.operatorToken();

    CompletableFuture<CopyInResponse> copy =
        CompletableFuture.supplyAsync(() -> uncheckedCopyIn(operator, remote, base));
    nodeA.awaitSentData();
    volumes.awaitCopyBegun("node-b");
    nodeA.kill();

    assertThat(message(assertCode(Status.Code.UNAVAILABLE, () -> join(copy))))
        .contains("node node-a");
    assertThat(DataFiles.sha256(nodes.image("node-b", base))).isEqualTo(baseSum);
    assertThat(volumes.entries("node-b", "volumes")).containsExactlyInAnyOrder(origin, base);
  }

  private CopyInResponse copyIn(String token, String snapshot, String base, String claim)
      throws Exception {
    return MoveCopyCalls.copyIn(nodes, token, "moved", snapshot, base, claim);
  }

  private SpaceResponse space(String token, String node, String volumeId) throws Exception {
    return MoveCopyCalls.space(nodes, token, node, volumeId);
  }

  private CopyInResponse uncheckedCopyIn(String token, String snapshot, String base) {
    try {
      return copyIn(token, snapshot, base, "moved");
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static <T> T join(CompletableFuture<T> future) {
    try {
      return future.join();
    } catch (CompletionException e) {
      throw (RuntimeException) e.getCause();
    }
  }

  private CsiClient csi(String node) {
    return nodes.driver(node).csi();
  }
}
