package io.thinvol.driver.csi;

import static io.thinvol.driver.client.ContentSources.snapshotSource;
import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.VolumeCapability;
import io.thinvol.driver.DriverHarness;
import io.thinvol.driver.XfsDataDir;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.preflight.DataFiles;
import io.thinvol.driver.store.DataLayout;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * On a data dir with reflinks, copies are instant: a block volume attached read-write can be
 * snapshotted (the reflink is atomic against its writes), and a mounted filesystem is frozen for
 * milliseconds only.
 */
class ReflinkSnapshotTest {

  private static final long MIB = 1L << 20;
  private static final VolumeCapability BLOCK = Capabilities.block();
  private static final VolumeCapability EXT4 = Capabilities.mount("ext4");

  @Test
  void attachedVolumesAreSnapshottedByReflink() throws Exception {
    try (XfsDataDir xfs = XfsDataDir.create()) {
      try (DriverHarness driver = DriverHarness.on(xfs.path(), "FITRIM")) {
        DataLayout layout = new DataLayout(xfs.path());
        String block = driver.create("block", 64 * MIB, BLOCK);
        Path device = driver.blockTarget("block");
        driver.stage(block, driver.staging("block"), BLOCK);
        driver.publish(block, driver.staging("block"), device, BLOCK, false);
        DataFiles.writeRandomToDevice(device, 16 * MIB);
        String written = DataFiles.sha256Prefix(device, 64 * MIB);

        String snapshot = driver.csi().createSnapshot("block-snap", block);
        assertThat(DataFiles.sha256(layout.snapshotImage(snapshot))).isEqualTo(written);
        String restored =
            driver.csi().createVolume("block-restored", 64 * MIB, BLOCK, snapshotSource(snapshot));
        assertThat(DataFiles.sha256(layout.volumeImage(restored))).isEqualTo(written);
        assertThat(driver.gate().finished())
            .as("every copy is a reflink")
            .filteredOn(argv -> argv.get(0).equals("cp") || argv.get(0).equals("FICLONE"))
            .allMatch(argv -> argv.get(0).equals("FICLONE"))
            .hasSizeGreaterThanOrEqualTo(3); // the probe, the snapshot, the restore

        String fs = driver.create("fs", 64 * MIB, EXT4);
        Path staging = driver.staging("fs");
        driver.stage(fs, staging, EXT4);
        String data = DataFiles.writeRandom(staging.resolve("data.bin"), 32 * MIB);
        String fsSnapshot = driver.csi().createSnapshot("fs-snap", fs);
        List<List<String>> commands = driver.gate().finished();
        int frozen = commands.indexOf(List.of("FIFREEZE", staging.toString()));
        int thawed = commands.indexOf(List.of("FITHAW", staging.toString()));
        assertThat(commands.subList(frozen + 1, thawed))
            .as("only the reflink happens while frozen")
            .containsExactly(
                List.of(
                    "FICLONE",
                    layout.volumeImage(fs).toString(),
                    DataLayout.creating(layout.snapshotDir(fsSnapshot))
                        .resolve(DataLayout.IMAGE)
                        .toString()));
        String fsRestored =
            driver.csi().createVolume("fs-restored", 64 * MIB, EXT4, snapshotSource(fsSnapshot));
        driver.stage(fsRestored, driver.staging("fs-restored"), EXT4);
        assertThat(DataFiles.sha256(driver.staging("fs-restored").resolve("data.bin")))
            .isEqualTo(data);

        driver.unstage(fsRestored, driver.staging("fs-restored"));
        driver.unstage(fs, staging);
        driver.unpublish(block, device);
        driver.unstage(block, driver.staging("block"));
      }
      assertThat(xfs.leaked()).isEmpty();
    }
  }
}
