package io.thinvol.driver.csi;

import static io.thinvol.driver.GrpcAssertions.assertCode;
import static io.thinvol.driver.GrpcAssertions.message;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import csi.v1.VolumeCapability;
import io.grpc.Status;
import io.thinvol.driver.DriverHarness;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.host.CommandResult;
import io.thinvol.driver.host.LoopDevices;
import io.thinvol.driver.host.ProcessCommandRunner;
import io.thinvol.driver.preflight.DataFiles;
import io.thinvol.driver.store.DataLayout;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A volume the driver formatted is never formatted again, whatever its device looks like now. */
class DamagedFilesystemTest {

  private static final long MIB = 1L << 20;
  // 512 MiB or more: ext4 with 4 KiB blocks, whose first backup superblock is block 32768.
  private static final long SIZE = 600 * MIB;
  private static final VolumeCapability EXT4 = Capabilities.mount("ext4");

  @Test
  void damagedSuperblockIsRefusedNotWipedAndRepairable() throws Exception {
    try (DriverHarness driver = new DriverHarness()) {
      String id = driver.create("damaged", SIZE, EXT4);
      Path staging = driver.staging("damaged");
      driver.stage(id, staging, EXT4);
      String data = DataFiles.writeRandom(staging.resolve("data.bin"), 8 * MIB);
      driver.unstage(id, staging);
      Path image = new DataLayout(driver.dataDir()).volumeImage(id);
      damagePrimarySuperblock(image);

      String refusal =
          message(
              assertCode(Status.Code.FAILED_PRECONDITION, () -> driver.stage(id, staging, EXT4)));
      assertThat(refusal).contains("e2fsck -b", image.toString(), "neither mounted nor formatted");
      assertThat(new LoopDevices(new ProcessCommandRunner()).of(image)).isEmpty();

      CommandResult repair =
          new ProcessCommandRunner()
              .runAllowingFailure(
                  Duration.ofMinutes(2), List.of("e2fsck", "-b", "32768", "-y", image.toString()));
      assertThat(repair.exitCode()).as(repair.describe()).isBetween(0, 1); // 1: errors corrected

      driver.stage(id, staging, EXT4);
      assertThat(DataFiles.sha256(staging.resolve("data.bin"))).isEqualTo(data);
      driver.unstage(id, staging);
      driver.csi().deleteVolume(id);
    }
  }

  @Test
  void recordWithoutTheFieldIsJudgedByItsImage() throws Exception {
    try (DriverHarness driver = new DriverHarness()) {
      String written = driver.create("written", SIZE, EXT4);
      String blank = driver.create("blank", SIZE, EXT4);
      driver.stage(written, driver.staging("written"), EXT4);
      DataFiles.writeRandom(driver.staging("written").resolve("data.bin"), MIB);
      driver.unstage(written, driver.staging("written"));

      // meta.json as a driver wrote it before it recorded formatting
      driver.stop();
      DataLayout layout = new DataLayout(driver.dataDir());
      forgetFormatted(layout.volumeDir(written).resolve(DataLayout.META));
      forgetFormatted(layout.volumeDir(blank).resolve(DataLayout.META));
      damagePrimarySuperblock(layout.volumeImage(written));
      driver.start();

      assertCode(
          Status.Code.FAILED_PRECONDITION,
          () -> driver.stage(written, driver.staging("written"), EXT4));
      driver.stage(blank, driver.staging("blank"), EXT4); // never written: formatted now
      assertThat(Files.readString(layout.volumeDir(blank).resolve(DataLayout.META)))
          .contains("\"formatted\" : true");
      driver.unstage(blank, driver.staging("blank"));
      driver.csi().deleteVolume(written);
      driver.csi().deleteVolume(blank);
    }
  }

  /** Overwrites the ext4 primary superblock (1 KiB at offset 1024), as a stray write would. */
  private static void damagePrimarySuperblock(Path image) throws Exception {
    byte[] garbage = new byte[1024];
    Arrays.fill(garbage, (byte) 0x5a);
    try (FileChannel channel = FileChannel.open(image, StandardOpenOption.WRITE)) {
      channel.write(ByteBuffer.wrap(garbage), 1024);
      channel.force(true);
    }
  }

  private static void forgetFormatted(Path meta) throws Exception {
    ObjectMapper json = new ObjectMapper();
    ObjectNode record = (ObjectNode) json.readTree(meta.toFile());
    assertThat(record.remove("formatted")).isNotNull();
    Files.write(meta, json.writeValueAsBytes(record));
  }
}
