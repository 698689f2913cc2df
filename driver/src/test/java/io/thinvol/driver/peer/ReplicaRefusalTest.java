package io.thinvol.driver.peer;

import static io.thinvol.driver.GrpcAssertions.assertCode;
import static io.thinvol.driver.GrpcAssertions.message;
import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.VolumeCapability;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.grpc.Status;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.peer.v1.CopyInRequest;
import io.thinvol.peer.v1.MoveCopyGrpc;
import java.net.HttpURLConnection;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a replica's copy is refused for, and with what: node-a sends a sync snapshot only of its
 * replication's primary, only for the VolumeReplication of that uid whose claim is bound to the
 * volume, and only to the driver pod of the standby node its status names; node-b applies a delta
 * only onto a replica of the same replication; a request that misses a field is INVALID_ARGUMENT.
 * Nothing is made on node-b by any of them.
 */
@EnableKubernetesMockClient(https = false)
class ReplicaRefusalTest {

  private static final long MIB = 1L << 20;
  private static final VolumeCapability EXT4 = Capabilities.mount("ext4");

  KubernetesMockServer server;

  @AutoClose private TwoNodeCluster cluster;
  private ReplicaCalls calls;
  private String primary;

  @BeforeEach
  void start() throws Exception {
    cluster = new TwoNodeCluster(server, EXT4);
    calls = new ReplicaCalls(cluster.nodes);
    primary = cluster.csi("node-a").createVolume("data", 64 * MIB, EXT4, null);
  }

  @Test
  void aSnapshotOfAVolumeThatIsNotAPrimaryIsNotSentAsAReplica() throws Exception {
    cluster.sources.replication(ReplicaCalls.NAME, ReplicaCalls.UID, "data", primary, "node-b");
    String s1 = calls.snapshot(primary, 1);
    assertThat(denied(s1)).contains("not the primary of a replication");
    calls.enable("node-a", primary);
    calls.copyIn("node-b", "data-1", s1, null); // now it is
  }

  @Test
  void aReplicationWhoseStandbyIsAnotherNodeGetsNothing() throws Exception {
    calls.enable("node-a", primary);
    cluster.sources.replication(ReplicaCalls.NAME, ReplicaCalls.UID, "data", primary, "node-c");
    standbyPod("node-c", "10.0.0.3");
    assertThat(denied(calls.snapshot(primary, 1)))
        .contains("is not the driver pod of node node-c (10.0.0.3)");
  }

  @Test
  void aVolumeReplicationOfAnotherUidOrClaimGetsNothing() throws Exception {
    calls.enable("node-a", primary);
    cluster.sources.replication(
        ReplicaCalls.NAME, "11111111-2222-3333-4444-555555555555", "data", primary, "node-b");
    assertThat(denied(calls.snapshot(primary, 1))).contains("not of VolumeReplication");
  }

  @Test
  void aDeltaGoesOntoAReplicaOfTheSameReplicationOnly() throws Exception {
    calls.enable("node-a", primary);
    cluster.sources.replication(ReplicaCalls.NAME, ReplicaCalls.UID, "data", primary, "node-b");
    String s1 = calls.snapshot(primary, 1);
    String unrelated = cluster.csi("node-b").createVolume("other", 64 * MIB, EXT4, null);
    assertThat(
            message(
                assertCode(
                    Status.Code.FAILED_PRECONDITION,
                    () -> calls.copyIn("node-b", "data-1", s1, unrelated))))
        .contains("not a replica of replication " + ReplicaCalls.UID);
    assertCode(
        Status.Code.INVALID_ARGUMENT,
        () -> {
          var channel = TlsPort.channel(cluster.nodes, "node-b", cluster.nodes.operatorToken());
          try {
            MoveCopyGrpc.newBlockingStub(channel)
                .copyIn(
                    CopyInRequest.newBuilder()
                        .setName("data-1")
                        .setSnapshotId(s1)
                        .setReplicationName(ReplicaCalls.NAME)
                        .setReplicationId(ReplicaCalls.UID)
                        .build());
          } finally {
            channel.shutdownNow();
          }
        });
    assertThat(cluster.volumes.entries("node-b", "volumes")).containsExactly(unrelated);
  }

  /** node-b's CopyIn of {@code snapshot}, refused by node-a: its message. */
  private String denied(String snapshot) throws Exception {
    String refused =
        message(
            assertCode(
                Status.Code.PERMISSION_DENIED,
                () -> calls.copyIn("node-b", "data-1", snapshot, null)));
    assertThat(cluster.volumes.entries("node-b", "volumes")).isEmpty();
    return refused;
  }

  /** The driver pod of {@code node}, ready at {@code ip}, as the field-selected LIST returns it. */
  private void standbyPod(String node, String ip) {
    server
        .expect()
        .get()
        .withPath(
            "/api/v1/namespaces/thinvol-system/pods?labelSelector=app.kubernetes.io%2Fname%3D"
                + "thinvol-node%2Cthinvol.io%2Fbackend%3Dtest&fieldSelector=spec.nodeName%3D"
                + node)
        .andReturn(
            HttpURLConnection.HTTP_OK,
            Map.of(
                "kind",
                "PodList",
                "items",
                List.of(
                    Map.of(
                        "metadata",
                        Map.of("name", "thinvol-test-node-" + node),
                        "spec",
                        Map.of("nodeName", node),
                        "status",
                        Map.of(
                            "podIP",
                            ip,
                            "conditions",
                            List.of(Map.of("type", "Ready", "status", "True")))))))
        .always();
  }
}
