package io.thinvol.driver.csi;

import static io.thinvol.driver.client.ContentSources.snapshotSource;
import static io.thinvol.driver.client.ContentSources.volumeSource;
import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.VolumeCapability;
import io.thinvol.driver.DriverHarness;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.preflight.DataFiles;
import io.thinvol.driver.store.DataLayout;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every image the driver writes (new volume, snapshot, clone, restore) is fsynced together with its
 * directory after its last write and before the call that made it answers.
 *
 * <p>What this proves: the driver asks the kernel for the fsyncs, in the right order, through its
 * one host-command layer ({@code sync -- <image> <directory>}, recorded by the test's runner). It
 * cannot prove that the disk honours a flush: no power is cut here.
 */
class ImageDurabilityTest {

  private static final long MIB = 1L << 20;
  private static final VolumeCapability EXT4 = Capabilities.mount("ext4");

  @Test
  void everyImageIsSyncedWithItsDirectoryBeforeItIsReported() throws Exception {
    try (DriverHarness driver = new DriverHarness()) {
      String origin = driver.create("origin", 32 * MIB, EXT4);
      assertSyncedAfterItsCopy(driver, volumeImage(driver, origin));

      driver.stage(origin, driver.staging("origin"), EXT4);
      DataFiles.writeRandom(driver.staging("origin").resolve("data.bin"), 4 * MIB);
      String snapshot = driver.csi().createSnapshot("durable", origin);
      assertSyncedAfterItsCopy(
          driver,
          DataLayout.creating(new DataLayout(driver.dataDir()).snapshotDir(snapshot))
              .resolve(DataLayout.IMAGE));

      String clone = driver.csi().createVolume("clone", 64 * MIB, EXT4, volumeSource(origin));
      assertSyncedAfterItsCopy(driver, volumeImage(driver, clone));
      String restored =
          driver.csi().createVolume("restored", 64 * MIB, EXT4, snapshotSource(snapshot));
      assertSyncedAfterItsCopy(driver, volumeImage(driver, restored));

      driver.unstage(origin, driver.staging("origin"));
    }
  }

  /** Where the driver assembled a volume's image before publishing its directory. */
  private static Path volumeImage(DriverHarness driver, String volumeId) {
    return DataLayout.creating(new DataLayout(driver.dataDir()).volumeDir(volumeId))
        .resolve(DataLayout.IMAGE);
  }

  private static void assertSyncedAfterItsCopy(DriverHarness driver, Path image) {
    List<List<String>> commands = driver.gate().finished();
    int synced =
        commands.lastIndexOf(List.of("fsync", image.toString(), image.getParent().toString()));
    assertThat(synced).as("fsync of %s and its directory", image).isNotNegative();
    int copied = -1;
    for (int i = 0; i < commands.size(); i++) {
      List<String> argv = commands.get(i);
      boolean copy = argv.get(0).equals("cp") || argv.get(0).equals("FICLONE");
      if (copy && argv.get(argv.size() - 1).equals(image.toString())) {
        copied = i;
      }
    }
    assertThat(synced).as("the fsync comes after the copy into %s", image).isGreaterThan(copied);
  }
}
