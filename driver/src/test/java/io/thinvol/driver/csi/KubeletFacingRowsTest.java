package io.thinvol.driver.csi;

import static io.thinvol.driver.GrpcAssertions.assertCode;
import static io.thinvol.driver.GrpcAssertions.message;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import csi.v1.VolumeCapability;
import io.grpc.Status;
import io.thinvol.driver.DriverHarness;
import io.thinvol.driver.DriverProcess;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.host.HostCleanup;
import io.thinvol.driver.host.MountTable;
import io.thinvol.driver.host.ProcessCommandRunner;
import io.thinvol.driver.preflight.DataFiles;
import io.thinvol.driver.store.Catalog;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The rows of the spec and of kubelet's behaviour that issue 16 (point 9) found wrong. */
class KubeletFacingRowsTest {

  private static final long MIB = 1L << 20;
  private static final long TIB = 1L << 40;
  private static final VolumeCapability EXT4 = Capabilities.mount("ext4");
  private static final Duration TIMEOUT = Duration.ofSeconds(60);
  private final ProcessCommandRunner runner = new ProcessCommandRunner();

  @Test
  @DisplayName(
      "NodeUnpublishVolume of a volume that no longer exists: OK when nothing is mounted at the"
          + " target (kubelet's cleanup after a reboot and a force-deleted pod), NOT_FOUND and"
          + " left alone when something is")
  void nodeUnpublishOfAVolumeThatNoLongerExists() throws Exception {
    try (DriverHarness driver = new DriverHarness()) {
      String id = driver.create("gone", 32 * MIB, EXT4);
      driver.stage(id, driver.staging("gone"), EXT4);
      driver.publish(id, driver.staging("gone"), driver.target("gone"), EXT4, false);
      reboot(driver);
      driver.csi().deleteVolume(id);

      driver.unpublish(id, driver.target("gone"));
      assertThat(driver.target("gone")).as("the empty target is removed").doesNotExist();
      driver.unpublish(id, driver.target("gone")); // and again, as kubelet retries

      Path foreign = Files.createDirectories(driver.target("foreign"));
      mountTmpfs(foreign);
      assertThat(message(assertCode(Status.Code.NOT_FOUND, () -> driver.unpublish(id, foreign))))
          .contains("left alone");
      assertThat(MountTable.read().at(foreign)).isPresent();
      runner.run(TIMEOUT, List.of("umount", foreign.toString()));
    }
  }

  @Test
  @DisplayName(
      "NodeUnstageVolume of a volume that no longer exists: OK when nothing is staged at the path,"
          + " NOT_FOUND and left alone when something is mounted there")
  void nodeUnstageOfAVolumeThatNoLongerExists() throws Exception {
    try (DriverHarness driver = new DriverHarness()) {
      String id = driver.create("gone", 32 * MIB, EXT4);
      driver.stage(id, driver.staging("gone"), EXT4);
      reboot(driver);
      driver.csi().deleteVolume(id);

      driver.unstage(id, driver.staging("gone"));
      driver.unstage(id, driver.staging("never-created"));

      Path foreign = Files.createDirectories(driver.staging("foreign"));
      mountTmpfs(foreign);
      assertThat(message(assertCode(Status.Code.NOT_FOUND, () -> driver.unstage(id, foreign))))
          .contains("left alone");
      assertThat(MountTable.read().at(foreign)).isPresent();
      runner.run(TIMEOUT, List.of("umount", foreign.toString()));
    }
  }

  @Test
  @DisplayName(
      "SINGLE_NODE_READER_ONLY filesystem: staged and published read-only without readonly=true")
  void readerOnlyFilesystemIsStagedAndPublishedReadOnly() throws Exception {
    try (DriverHarness driver = new DriverHarness()) {
      String id = driver.create("rox", 32 * MIB, EXT4);
      driver.stage(id, driver.staging("rox"), EXT4);
      driver.publish(id, driver.staging("rox"), driver.target("rw"), EXT4, false);
      String data = DataFiles.writeRandom(driver.target("rw").resolve("data.bin"), MIB);
      driver.unpublish(id, driver.target("rw"));
      driver.unstage(id, driver.staging("rox"));

      VolumeCapability readerOnly = readerOnly(EXT4);
      driver.stage(id, driver.staging("rox"), readerOnly);
      driver.publish(id, driver.staging("rox"), driver.target("ro"), readerOnly, false);
      MountTable table = MountTable.read();
      assertThat(table.at(driver.staging("rox")).orElseThrow().readOnly()).isTrue();
      assertThat(table.at(driver.target("ro")).orElseThrow().readOnly()).isTrue();
      assertThat(DataFiles.sha256(driver.target("ro").resolve("data.bin"))).isEqualTo(data);
      assertThatThrownBy(() -> Files.writeString(driver.target("ro").resolve("new"), "x"))
          .isInstanceOf(IOException.class);
      assertCode(Status.Code.ALREADY_EXISTS, () -> driver.stage(id, driver.staging("rox"), EXT4));

      driver.unpublish(id, driver.target("ro"));
      driver.unstage(id, driver.staging("rox"));
    }
  }

  @Test
  @DisplayName("SINGLE_NODE_READER_ONLY block volume: published read-only without readonly=true")
  void readerOnlyBlockVolumeIsPublishedReadOnly() throws Exception {
    try (DriverHarness driver = new DriverHarness()) {
      VolumeCapability readerOnly = readerOnly(Capabilities.block());
      String id = driver.create("rox", 32 * MIB, Capabilities.block());
      driver.stage(id, driver.staging("rox"), readerOnly);
      driver.publish(id, driver.staging("rox"), driver.blockTarget("rox"), readerOnly, false);
      assertThatThrownBy(
              () -> {
                try (FileChannel channel =
                    FileChannel.open(driver.blockTarget("rox"), StandardOpenOption.WRITE)) {
                  channel.write(ByteBuffer.allocate(4096));
                  channel.force(true);
                }
              })
          .as("the device refuses writes")
          .isInstanceOf(IOException.class);
      driver.unpublish(id, driver.blockTarget("rox"));
      driver.unstage(id, driver.staging("rox"));
    }
  }

  @Test
  @DisplayName(
      "CreateVolume and ControllerExpandVolume beyond the largest file the data dir's filesystem"
          + " allows (16 TiB on ext4): OUT_OF_RANGE, nothing left behind")
  void aVolumeLargerThanTheDataDirAllowsPerFileIsOutOfRange() throws Exception {
    Path disk = Files.createTempDirectory("thinvol-ext4-data-");
    try {
      Path image = disk.resolve("disk.img");
      Path dataDir = Files.createDirectories(disk.resolve("mnt"));
      try (RandomAccessFile file = new RandomAccessFile(image.toFile(), "rw")) {
        file.setLength(64 * MIB);
      }
      runner.run(TIMEOUT, List.of("mkfs.ext4", "-q", "-b", "4096", image.toString()));
      String device =
          runner.run(TIMEOUT, List.of("losetup", "--find", "--show", image.toString())).stdout();
      runner.run(TIMEOUT, List.of("mount", device.strip(), dataDir.toString()));
      try (DriverHarness driver = DriverHarness.withDataDir(dataDir, 1_000_000)) {
        assertThat(
                message(
                    assertCode(
                        Status.Code.OUT_OF_RANGE,
                        () -> driver.create("huge", 17 * TIB, Capabilities.block()))))
            .contains("does not allow a file of");
        String id = driver.create("small", 32 * MIB, Capabilities.block());
        assertCode(Status.Code.OUT_OF_RANGE, () -> driver.csi().expand(id, 17 * TIB));
        try (Stream<Path> volumes = Files.list(dataDir.resolve("volumes"))) {
          assertThat(volumes).extracting(p -> p.getFileName().toString()).containsExactly(id);
        }
        assertThat(Files.size(dataDir.resolve("volumes").resolve(id).resolve("disk.img")))
            .isEqualTo(32 * MIB);
      }
    } finally {
      List<String> released = HostCleanup.release(disk);
      Catalog.removeTree(disk);
      assertThat(released).hasSize(2); // the data dir's mount and loop device, nothing else
    }
  }

  @Test
  @DisplayName(
      "DeleteVolume: the rename that removes a volume is made durable (fsync of the volumes"
          + " directory) before its files go")
  void volumeRemovalSyncsTheDirectoryAfterTheRename() throws Exception {
    Path root = Files.createTempDirectory("thinvol-strace-");
    Path trace = root.resolve("trace.log");
    try {
      String id;
      try (DriverProcess driver =
          DriverProcess.start(
              root,
              "node-a",
              List.of(
                  "strace",
                  "-f",
                  "--seccomp-bpf",
                  "-y",
                  "-e",
                  "trace=rename,renameat,renameat2,fsync",
                  "-o",
                  trace.toString()),
              root.resolve("data"))) {
        id = driver.csi().createVolume("doomed", 16 * MIB, Capabilities.block(), null);
        driver.csi().deleteVolume(id);
      }
      List<String> calls = Files.readAllLines(trace);
      int rename = -1;
      for (int i = 0; i < calls.size(); i++) {
        if (calls.get(i).contains("rename") && calls.get(i).contains(".deleting-" + id)) {
          rename = i;
        }
      }
      assertThat(rename).as("the volume's directory is renamed").isNotNegative();
      assertThat(calls.subList(rename + 1, calls.size()))
          .as("then the directory holding it is synced")
          .anyMatch(line -> line.contains("fsync(") && line.contains("/data/volumes>)"));
    } finally {
      List<String> leaked = HostCleanup.release(root);
      Catalog.removeTree(root);
      assertThat(leaked).isEmpty();
    }
  }

  /** A reboot: every mount and loop device is gone, the data dir is not. */
  private static void reboot(DriverHarness driver) {
    assertThat(HostCleanup.release(driver.root().resolve("pods"))).hasSizeLessThanOrEqualTo(1);
    assertThat(HostCleanup.release(driver.root().resolve("staging"))).isNotEmpty();
    assertThat(HostCleanup.release(driver.dataDir())).isNotEmpty();
  }

  private void mountTmpfs(Path at) {
    runner.run(
        TIMEOUT, List.of("mount", "-t", "tmpfs", "-o", "size=1m", "thinvol-test", at.toString()));
  }

  private static VolumeCapability readerOnly(VolumeCapability capability) {
    return capability.toBuilder()
        .setAccessMode(
            VolumeCapability.AccessMode.newBuilder()
                .setMode(VolumeCapability.AccessMode.Mode.SINGLE_NODE_READER_ONLY))
        .build();
  }
}
