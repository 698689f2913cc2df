package io.thinvol.driver.peer;

import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.VolumeCapability;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.preflight.DataFiles;
import io.thinvol.peer.v1.CopyInResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The standby's driver killed (SIGKILL) in the middle of a sync's delta: after its restart the
 * replica is still the previous sync point, whole and unchanged, nothing half-applied is left, and
 * the sync asked again makes the next one.
 */
@EnableKubernetesMockClient(https = false)
class ReplicaCrashTest {

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
  void aStandbyKilledMidDeltaKeepsThePreviousSyncPoint() throws Exception {
    String primary = cluster.csi("node-a").createVolume("data", 512 * MIB, EXT4, null);
    Path mount = cluster.volumes.stageAndPublish("node-a", primary);
    DataFiles.writeRandom(mount.resolve("first.bin"), 16 * MIB);
    calls.enable("node-a", primary);
    cluster.sources.replication(ReplicaCalls.NAME, ReplicaCalls.UID, "data", primary, "node-b");
    String s1 = calls.snapshot(primary, 1);
    String r1 = calls.copyIn("node-b", "data-1", s1, null).getVolumeId();
    calls.synced("node-a", primary, s1, 0);
    calls.synced("node-b", r1, s1, 0);
    String r1Sum = DataFiles.sha256(cluster.nodes.image("node-b", r1));
    String r1Meta = Files.readString(cluster.nodes.meta("node-b", r1));

    DataFiles.writeRandom(mount.resolve("second.bin"), 192 * MIB);
    String s2 = calls.snapshot(primary, 2);
    cluster.killNodeBMidCopy(() -> calls.copyIn("node-b", "data-2", s2, r1), 16 * MIB);

    cluster.nodes.start("node-b");
    assertThat(cluster.volumes.entries("node-b", "volumes"))
        .as("the half-made replica is gone, the previous one stays")
        .containsExactly(r1);
    assertThat(DataFiles.sha256(cluster.nodes.image("node-b", r1))).isEqualTo(r1Sum);
    assertThat(Files.readString(cluster.nodes.meta("node-b", r1))).isEqualTo(r1Meta);

    CopyInResponse r2 = calls.copyIn("node-b", "data-2", s2, r1);
    assertThat(DataFiles.sha256(cluster.nodes.image("node-b", r2.getVolumeId())))
        .isEqualTo(DataFiles.sha256(cluster.snapshotImage("node-a", s2)));
    calls.synced("node-a", primary, s2, r2.getDeltaBytes());
    assertThat(calls.synced("node-b", r2.getVolumeId(), s2, r2.getDeltaBytes()))
        .containsExactly(r1);
    cluster.volumes.unpublishAndUnstage("node-a", primary);
  }
}
