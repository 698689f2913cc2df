package io.thinvol.driver.peer;

import static io.thinvol.driver.GrpcAssertions.assertCode;
import static io.thinvol.driver.GrpcAssertions.message;
import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.ListSnapshotsRequest;
import csi.v1.Snapshot;
import csi.v1.VolumeCapability;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.grpc.Status;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.client.CsiClient;
import io.thinvol.peer.v1.SnapshotResponse;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * A VolumeMove's cut-over snapshot, driver side: the operator, and only it, asks the node that
 * holds the volume for it (MoveCopy/Snapshot on its TLS port) once the claim is gone, by name, and
 * drops it by name should the move roll back before it was imported into the snapshot API.
 */
@EnableKubernetesMockClient(https = false)
class MoveSnapshotTest {

  private static final long MIB = 1L << 20;
  private static final VolumeCapability EXT4 = Capabilities.mount("ext4");

  KubernetesMockServer server;

  @AutoClose private PeerDrivers nodes;

  @Test
  void aCutOverSnapshotIsTheOperatorsToTakeOnceByNameAndToDropOnTheNodeThatHoldsTheVolume()
      throws Exception {
    nodes = new PeerDrivers(server);
    String origin = csi("node-a").createVolume("origin", 64 * MIB, EXT4, null);
    String other = csi("node-a").createVolume("other", 64 * MIB, EXT4, null);
    String operator = nodes.operatorToken();

    SnapshotResponse taken = snapshot(operator, "node-a", "cut", origin);
    assertThat(taken.getSizeBytes()).isEqualTo(64 * MIB);
    assertThat(snapshot(operator, "node-a", "cut", origin)).isEqualTo(taken);
    // What csi-snapshotter reads of a pre-provisioned content: the snapshot, ready.
    assertThat(snapshotsOnNodeA(taken.getSnapshotId()))
        .singleElement()
        .returns(origin, s -> s.getSourceVolumeId())
        .returns(true, s -> s.getReadyToUse());
    assertCode(Status.Code.ALREADY_EXISTS, () -> snapshot(operator, "node-a", "cut", other));
    assertThat(
            message(
                assertCode(
                    Status.Code.FAILED_PRECONDITION,
                    () -> MoveCopyCalls.drop(nodes, operator, "node-a", "cut", other))))
        .contains("left as it is");
    assertCode(Status.Code.UNAUTHENTICATED, () -> snapshot(null, "node-a", "cut-2", origin));
    assertCode(
        Status.Code.PERMISSION_DENIED, () -> snapshot(nodes.nodeToken(), "node-a", "x", origin));
    assertCode(
        Status.Code.PERMISSION_DENIED,
        () -> MoveCopyCalls.drop(nodes, nodes.nodeToken(), "node-a", "cut", origin));
    assertThat(
            message(
                assertCode(
                    Status.Code.NOT_FOUND, () -> snapshot(operator, "node-b", "cut-b", origin))))
        .contains(origin);
    assertThat(
            message(
                assertCode(
                    Status.Code.INVALID_ARGUMENT, () -> snapshot(operator, "node-a", "", origin))))
        .contains("name");
    assertThat(
            message(
                assertCode(
                    Status.Code.INVALID_ARGUMENT, () -> snapshot(operator, "node-a", "n", ""))))
        .contains("source_volume_id is required");
    assertThat(snapshotsOnNodeA("")).hasSize(1);

    assertThat(MoveCopyCalls.drop(nodes, operator, "node-a", "cut", origin)).isTrue();
    assertThat(MoveCopyCalls.drop(nodes, operator, "node-a", "cut", origin)).isFalse();
    assertThat(snapshotsOnNodeA("")).isEmpty();
  }

  private List<Snapshot> snapshotsOnNodeA(String id) {
    return csi("node-a")
        .controller()
        .listSnapshots(ListSnapshotsRequest.newBuilder().setSnapshotId(id).build())
        .getEntriesList()
        .stream()
        .map(e -> e.getSnapshot())
        .toList();
  }

  private SnapshotResponse snapshot(String token, String node, String name, String volumeId)
      throws Exception {
    return MoveCopyCalls.snapshot(nodes, token, node, name, volumeId);
  }

  private CsiClient csi(String node) {
    return nodes.driver(node).csi();
  }
}
