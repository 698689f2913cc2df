package io.thinvol.driver.peer;

import static io.thinvol.driver.GrpcAssertions.assertCode;
import static io.thinvol.driver.GrpcAssertions.message;
import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.VolumeCapability;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.grpc.Status;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.preflight.DataFiles;
import io.thinvol.peer.v1.CopyInResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A replication's syncs between two driver processes, as the operator makes them: node-a's volume
 * is the primary, written by its pod all along; every sync is a snapshot on node-a
 * (MoveCopy/Snapshot), a replica on node-b (MoveCopy/CopyIn, the first in full, the next onto the
 * previous replica with the changes only, entitled by the VolumeReplication whose standby is
 * node-b), and the sync point moved on both (MoveCopy/Synced), which drops the older snapshot and
 * replica. Then a failover's roles: the replica promoted and staged on node-b, the old primary
 * demoted, refused staging and marked to resync.
 */
@EnableKubernetesMockClient(https = false)
class ReplicaSyncTest {

  private static final long MIB = 1L << 20;
  private static final VolumeCapability EXT4 = Capabilities.mount("ext4");

  KubernetesMockServer server;

  @AutoClose private TwoNodeCluster cluster;
  private ReplicaCalls calls;

  @BeforeEach
  void start() throws Exception {
    cluster = new TwoNodeCluster(server, EXT4);
    calls = new ReplicaCalls(cluster.nodes);
  }

  @Test
  void eachSyncSendsTheChangesOnlyAndLeavesOneReplicaOfOneSyncPoint() throws Exception {
    String primary = cluster.csi("node-a").createVolume("data", 256 * MIB, EXT4, null);
    Path mount = cluster.volumes.stageAndPublish("node-a", primary);
    String first = DataFiles.writeRandom(mount.resolve("first.bin"), 24 * MIB);
    calls.enable("node-a", primary);
    cluster.sources.replication(ReplicaCalls.NAME, ReplicaCalls.UID, "data", primary, "node-b");

    // The first sync: a whole copy of the snapshot, taken while the pod writes on.
    String s1 = calls.snapshot(primary, 1);
    CopyInResponse r1 = calls.copyIn("node-b", "data-1", s1, null);
    assertThat(sameImage(r1.getVolumeId(), s1)).isTrue();
    assertThat(r1.getDeltaBytes()).isBetween(24 * MIB, 26 * MIB);
    assertThat(calls.synced("node-a", primary, s1, r1.getDeltaBytes())).isEmpty();
    assertThat(calls.synced("node-b", r1.getVolumeId(), s1, r1.getDeltaBytes())).isEmpty();
    assertThat(meta("node-b", r1.getVolumeId())).contains("SECONDARY").contains(s1);
    assertThat(
            message(
                assertCode(
                    Status.Code.FAILED_PRECONDITION,
                    () -> cluster.volumes.stageAndPublish("node-b", r1.getVolumeId()))))
        .contains("replica");

    // The next: the 16 MiB written since cross, and little else; the older sync point goes.
    String second = DataFiles.writeRandom(mount.resolve("second.bin"), 16 * MIB);
    String s2 = calls.snapshot(primary, 2);
    CopyInResponse r2 = calls.copyIn("node-b", "data-2", s2, r1.getVolumeId());
    assertThat(r2.getBaseSnapshotId()).isEqualTo(s1);
    assertThat(r2.getDeltaBytes())
        .as("bytes sent per sync over bytes changed")
        .isBetween(16 * MIB, (long) (16 * MIB * 1.05));
    assertThat(sameImage(r2.getVolumeId(), s2)).isTrue();
    assertThat(calls.synced("node-a", primary, s2, r2.getDeltaBytes())).containsExactly(s1);
    assertThat(calls.synced("node-b", r2.getVolumeId(), s2, r2.getDeltaBytes()))
        .containsExactly(r1.getVolumeId());
    assertThat(calls.synced("node-a", primary, s2, r2.getDeltaBytes())).as("idempotent").isEmpty();
    assertThat(cluster.volumes.entries("node-a", "snapshots")).containsExactly(s2);
    assertThat(cluster.volumes.entries("node-b", "volumes")).containsExactly(r2.getVolumeId());
    assertThat(meta("node-a", primary)).contains("PRIMARY").contains(s2);

    // Written after the last sync: lost by a failover.
    Files.writeString(mount.resolve("after-sync.txt"), "written after the last sync");

    // The failover's roles: node-b's replica promoted, staged there with the sync point's data.
    calls.promote("node-b", r2.getVolumeId());
    Path promoted = cluster.volumes.stageAndPublish("node-b", r2.getVolumeId());
    assertThat(DataFiles.sha256(promoted.resolve("first.bin"))).isEqualTo(first);
    assertThat(DataFiles.sha256(promoted.resolve("second.bin"))).isEqualTo(second);
    assertThat(promoted.resolve("after-sync.txt")).doesNotExist();

    // node-a's copy is stale: demoted, never staged again, not ready to use (marked to resync).
    calls.demote("node-a", primary);
    cluster.volumes.unpublishAndUnstage("node-a", primary);
    assertCode(
        Status.Code.FAILED_PRECONDITION, () -> cluster.volumes.stageAndPublish("node-a", primary));
    assertThat(calls.resync("node-a", primary)).isFalse();
    assertThat(meta("node-a", primary)).contains("\"stale\" : true").contains("\"resync\" : true");
    assertThat(cluster.volumes.entries("node-a", "snapshots"))
        .as("a demoted copy is no sync point")
        .isEmpty();
    cluster.volumes.unpublishAndUnstage("node-b", r2.getVolumeId());
  }

  private boolean sameImage(String replica, String snapshot) throws Exception {
    return DataFiles.sha256(cluster.nodes.image("node-b", replica))
        .equals(DataFiles.sha256(cluster.snapshotImage("node-a", snapshot)));
  }

  private String meta(String node, String volumeId) throws Exception {
    return Files.readString(cluster.nodes.meta(node, volumeId));
  }
}
