package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.thinvol.api.kube.VolumeNodes;
import io.thinvol.driver.preflight.DataFiles;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;

/**
 * A snapshot of a claim on node-a restored on node-b, through the same steps as in a cluster: the
 * claim provisioned on node-a and written by a pod there, a VolumeSnapshot made by node-a's driver,
 * a claim from it scheduled to node-b, whose driver pulls the snapshot from node-a's over the TLS
 * port after checking that claim with the API server. A pod on node-b reads the same data.
 */
class CrossNodeRestoreEndToEndTest extends TwoNodeEndToEndTest {

  @Test
  void aSnapshotOfAClaimOnNodeAIsRestoredOnNodeBWithItsData() throws Exception {
    provisioned("data", A, null);
    PlayedPod writer = PlayedPod.start(client, nodes.node(A), APPS, "writer", "data");
    String written = DataFiles.writeRandom(writer.mount().resolve("data.bin"), 64 * MIB);
    Files.writeString(writer.mount().resolve("note.txt"), "written on node-a");
    writer.sync();
    readySnapshot("backup", "data"); // of the running pod's volume, as a backup is taken
    writer.stop();

    PersistentVolumeClaim copy = provisioned("copy", B, "backup");

    PersistentVolume volume =
        client.persistentVolumes().withName(copy.getSpec().getVolumeName()).get();
    String copyId = volume.getSpec().getCsi().getVolumeHandle();
    assertThat(VolumeNodes.of(volume)).containsExactly(B);
    assertThat(nodes.node(B).volumes()).as("node-b holds the copy").contains(copyId);
    assertThat(nodes.node(A).volumes()).as("node-a does not").doesNotContain(copyId);
    PlayedPod reader = PlayedPod.start(client, nodes.node(B), APPS, "reader", "copy");
    assertThat(DataFiles.sha256(reader.mount().resolve("data.bin"))).isEqualTo(written);
    assertThat(reader.mount().resolve("note.txt")).hasContent("written on node-a");
    reader.stop();
  }
}
