package io.thinvol.driver.csi;

import static io.thinvol.driver.GrpcAssertions.assertCode;
import static io.thinvol.driver.GrpcAssertions.message;
import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.thinvol.driver.DriverProcess;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.host.HostCleanup;
import io.thinvol.driver.store.Catalog;
import java.io.File;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A node (or driver image) without xfsprogs: the driver knows at start that it cannot make xfs,
 * refuses xfs volumes up front with the package to install, and still serves ext4.
 */
class MissingFilesystemToolsTest {

  private static final long MIB = 1L << 20;
  private static final Set<String> XFS_TOOLS = Set.of("mkfs.xfs", "xfs_growfs");
  private Path root;

  @BeforeEach
  void createRoot() throws IOException {
    root = Files.createTempDirectory("thinvol-notools-");
  }

  @AfterEach
  void cleanUp() throws IOException {
    List<String> leaked = HostCleanup.release(root);
    Catalog.removeTree(root);
    assertThat(leaked).as("left behind").isEmpty();
  }

  @Test
  @DisplayName(
      "without mkfs.xfs: CreateVolume 'volume capabilities not supported | 3 INVALID_ARGUMENT',"
          + " NodeStage of a never-formatted xfs volume FAILED_PRECONDITION, both naming xfsprogs")
  void refusesWhatItCannotMake() throws Exception {
    String xfsId;
    try (DriverProcess full = DriverProcess.start(root, "node-a")) {
      xfsId = full.csi().createVolume("made-elsewhere", 320 * MIB, Capabilities.mount("xfs"), null);
    }
    Path reducedPath = pathWithout(XFS_TOOLS);
    try (DriverProcess driver =
        DriverProcess.start(
            root, "node-a", List.of("env", "PATH=" + reducedPath), root.resolve("data"))) {
      String refusal =
          message(
              assertCode(
                  Status.Code.INVALID_ARGUMENT,
                  () ->
                      driver
                          .csi()
                          .createVolume("new-xfs", 320 * MIB, Capabilities.mount("xfs"), null)));
      assertThat(refusal).contains("mkfs.xfs").contains("apt-get install -y xfsprogs");

      String ext4 =
          driver.csi().createVolume("new-ext4", 32 * MIB, Capabilities.mount("ext4"), null);
      driver.csi().stage(ext4, root.resolve("staging/ext4"), Capabilities.mount("ext4"));
      driver.csi().unstage(ext4, root.resolve("staging/ext4"));

      String stageRefusal =
          message(
              assertCode(
                  Status.Code.FAILED_PRECONDITION,
                  () ->
                      driver
                          .csi()
                          .stage(xfsId, root.resolve("staging/xfs"), Capabilities.mount("xfs"))));
      assertThat(stageRefusal).contains(xfsId).contains("xfsprogs");
      assertThat(attachedLoopDevices(root.resolve("data")))
          .as("no loop device left attached")
          .isEmpty();

      driver.csi().deleteVolume(ext4);
      driver.csi().deleteVolume(xfsId);
    }
    assertThat(Files.readString(root.resolve("driver.log")))
        .contains("cannot make xfs filesystems");
  }

  /** A directory holding every program of this PATH except {@code left}, as symbolic links. */
  private Path pathWithout(Set<String> left) throws IOException {
    Path dir = Files.createDirectories(root.resolve("bin"));
    for (String entry : System.getenv("PATH").split(File.pathSeparator)) {
      Path source = Path.of(entry);
      if (entry.isEmpty() || !Files.isDirectory(source)) {
        continue;
      }
      try (DirectoryStream<Path> programs = Files.newDirectoryStream(source)) {
        for (Path program : programs) {
          Path link = dir.resolve(program.getFileName().toString());
          if (!left.contains(program.getFileName().toString()) && !Files.exists(link)) {
            Files.createSymbolicLink(link, program.toRealPath());
          }
        }
      } catch (IOException e) {
        // an unreadable PATH entry holds nothing the driver needs
      }
    }
    return dir;
  }

  private static String attachedLoopDevices(Path dataDir) throws Exception {
    Process losetup =
        new ProcessBuilder("losetup", "--list", "--noheadings", "--output", "NAME,BACK-FILE")
            .redirectErrorStream(true)
            .start();
    String out = new String(losetup.getInputStream().readAllBytes());
    losetup.waitFor();
    return out.lines()
        .filter(line -> line.contains(dataDir.toString()))
        .reduce("", (a, b) -> a + b + "\n");
  }
}
