package io.thinvol.driver.peer.copy;

import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.CreateVolumeGroupSnapshotRequest;
import csi.v1.Snapshot;
import csi.v1.VolumeCapability;
import io.thinvol.driver.DriverHarness;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.preflight.DataFiles;
import io.thinvol.driver.store.DataLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A real driver on a data dir without reflinks (the test's temporary directory) records each
 * snapshot's blocks while it copies it, a member of a group snapshot too, and the record is there,
 * sealed and valid, by the time CreateSnapshot answers: it is the one a read of the snapshot makes.
 */
class RecordedSnapshotsTest {

  private static final long MIB = 1L << 20;
  private static final VolumeCapability EXT4 = Capabilities.mount("ext4");

  @Test
  void aSnapshotTakenAsAFullCopyIsRecordedBeforeItIsReported() throws Exception {
    try (DriverHarness driver = new DriverHarness()) {
      DataLayout layout = new DataLayout(driver.dataDir());
      String a = stagedWithData(driver, "a");
      String b = stagedWithData(driver, "b");

      String snapshot = driver.csi().createSnapshot("recorded", a);
      assertRecordedAsAReadRecordsIt(layout.snapshotImage(snapshot));

      List<Snapshot> members =
          driver
              .csi()
              .groupController()
              .createVolumeGroupSnapshot(
                  CreateVolumeGroupSnapshotRequest.newBuilder()
                      .setName("group")
                      .addSourceVolumeIds(a)
                      .addSourceVolumeIds(b)
                      .build())
              .getGroupSnapshot()
              .getSnapshotsList();
      assertThat(members).hasSize(2);
      for (Snapshot member : members) {
        assertRecordedAsAReadRecordsIt(layout.snapshotImage(member.getSnapshotId()));
      }
      driver.unstage(a, driver.staging("a"));
      driver.unstage(b, driver.staging("b"));
    }
  }

  private static String stagedWithData(DriverHarness driver, String name) throws Exception {
    String id = driver.create(name, 64 * MIB, EXT4);
    driver.stage(id, driver.staging(name), EXT4);
    DataFiles.writeRandom(driver.staging(name).resolve("data.bin"), 8 * MIB);
    return id;
  }

  private static void assertRecordedAsAReadRecordsIt(Path image) throws Exception {
    StringBuilder why = new StringBuilder();
    try (BlockSums record = BlockSums.open(image, why).orElseThrow(() -> new AssertionError(why))) {
      assertThat(record.length()).isEqualTo(Files.size(image));
    }
    ImageBytes.assertRecordedAsAReadRecordsIt(image);
  }
}
