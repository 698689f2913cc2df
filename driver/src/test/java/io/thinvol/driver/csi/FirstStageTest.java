package io.thinvol.driver.csi;

import static io.thinvol.driver.GrpcAssertions.assertCode;
import static io.thinvol.driver.GrpcAssertions.message;
import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.VolumeCapability;
import io.grpc.Status;
import io.thinvol.driver.DriverHarness;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.host.LoopDevices;
import io.thinvol.driver.host.MountTable;
import io.thinvol.driver.host.ProcessCommandRunner;
import io.thinvol.driver.store.DataLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The first stage of a volume, which formats it: what it saves against the safety it keeps. A
 * device it attached is judged blank by its image's extent map, mke2fs's own fsync is not repeated,
 * and the record of the new filesystem is written while it is mounted.
 */
class FirstStageTest {

  private static final long MIB = 1L << 20;
  private static final Duration TIMEOUT = Duration.ofMinutes(2);
  private static final VolumeCapability EXT4 = Capabilities.mount("ext4");
  private static final VolumeCapability XFS = Capabilities.mount("xfs");
  private final ProcessCommandRunner runner = new ProcessCommandRunner();

  @Test
  void anImageHoldingAnotherFilesystemIsRefusedNotFormatted() throws Exception {
    try (DriverHarness driver = new DriverHarness()) {
      String id = driver.create("foreign", 64 * MIB, EXT4);
      Path image = new DataLayout(driver.dataDir()).volumeImage(id);
      runner.run(TIMEOUT, List.of("mkfs.ext2", "-q", "-F", image.toString()));

      String refusal =
          message(
              assertCode(
                  Status.Code.FAILED_PRECONDITION,
                  () -> driver.stage(id, driver.staging("foreign"), EXT4)));

      assertThat(refusal).contains("should hold ext4 but its device holds ext2");
      assertThat(driver.gate().finished()).noneMatch(argv -> argv.get(0).startsWith("mkfs"));
      assertThat(blkidType(image)).isEqualTo("ext2");
      assertThat(new LoopDevices(runner).of(image)).isEmpty();
      driver.csi().deleteVolume(id);
    }
  }

  @Test
  void ext4IsNotSyncedAgainAfterMke2fsWhichSyncsItself() throws Exception {
    List<List<String>> calls = callsOfFirstStage("ext4", 64 * MIB, EXT4);

    assertThat(calls).anyMatch(argv -> argv.get(0).equals("mkfs.ext4"));
    assertThat(calls).noneMatch(FirstStageTest::isDeviceFsync);
  }

  @Test
  void xfsIsSyncedAfterMkfsBeforeItIsRecorded() throws Exception {
    List<List<String>> calls = callsOfFirstStage("xfs", 320 * MIB, XFS);

    int mkfs = indexOf(calls, "mkfs.xfs");
    assertThat(mkfs).isNotNegative();
    assertThat(calls.subList(mkfs, calls.size())).anyMatch(FirstStageTest::isDeviceFsync);
  }

  /** The host commands and calls of a new volume's first stage, which must record it formatted. */
  private static List<List<String>> callsOfFirstStage(
      String name, long bytes, VolumeCapability capability) throws Exception {
    try (DriverHarness driver = new DriverHarness()) {
      String id = driver.create(name, bytes, capability);
      driver.stage(id, driver.staging(name), capability);
      List<List<String>> calls = driver.gate().finished();
      assertRecordedFormatted(driver, id);
      driver.unstage(id, driver.staging(name));
      driver.csi().deleteVolume(id);
      return calls;
    }
  }

  @Test
  void aRecordThatCannotBeWrittenFailsTheStageAndLeavesNothingMounted() throws Exception {
    try (DriverHarness driver = new DriverHarness()) {
      String id = driver.create("unrecorded", 64 * MIB, EXT4);
      Path staging = driver.staging("unrecorded");
      Path volumeDir = new DataLayout(driver.dataDir()).volumeDir(id);
      Path image = new DataLayout(driver.dataDir()).volumeImage(id);
      runner.run(TIMEOUT, List.of("chattr", "+i", volumeDir.toString()));
      try {
        assertCode(Status.Code.INTERNAL, () -> driver.stage(id, staging, EXT4));
        assertThat(MountTable.read().at(staging)).isEmpty();
        assertThat(new LoopDevices(runner).of(image)).isEmpty();
      } finally {
        runner.run(TIMEOUT, List.of("chattr", "-i", volumeDir.toString()));
      }

      driver.stage(id, staging, EXT4); // finds the filesystem made before, records and mounts it
      assertThat(MountTable.read().at(staging)).isPresent();
      assertRecordedFormatted(driver, id);
      driver.unstage(id, staging);
      driver.csi().deleteVolume(id);
    }
  }

  private static boolean isDeviceFsync(List<String> call) {
    return call.get(0).equals("fsync") && call.stream().anyMatch(a -> a.startsWith("/dev/loop"));
  }

  private static int indexOf(List<List<String>> calls, String program) {
    for (int i = 0; i < calls.size(); i++) {
      if (calls.get(i).get(0).equals(program)) {
        return i;
      }
    }
    return -1;
  }

  private String blkidType(Path image) {
    return runner
        .run(TIMEOUT, List.of("blkid", "-p", "-o", "value", "-s", "TYPE", image.toString()))
        .stdout()
        .strip();
  }

  private static void assertRecordedFormatted(DriverHarness driver, String id) throws Exception {
    Path meta = new DataLayout(driver.dataDir()).volumeDir(id).resolve(DataLayout.META);
    assertThat(Files.readString(meta)).contains("\"formatted\" : true");
  }
}
