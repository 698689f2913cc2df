package io.thinvol.driver.csi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import csi.v1.DeleteVolumeRequest;
import csi.v1.ProbeRequest;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.thinvol.driver.DriverProcess;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.host.HostCleanup;
import io.thinvol.driver.host.ProcessCommandRunner;
import io.thinvol.driver.store.Catalog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A data dir declared a dedicated mount, with the disk mounted on the node only after the driver
 * started. The driver runs as in its container: a mount namespace of its own where the node's data
 * dir is bind-mounted as a slave of the node's mount (the kubelet's HostToContainer propagation),
 * so a mount made later on the node reaches it.
 */
class DedicatedMountTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final long MIB = 1L << 20;
  private final ProcessCommandRunner host = new ProcessCommandRunner();
  private Path root;
  private Path nodeDataDir;
  private Path containerDataDir;
  private DriverProcess driver;

  @BeforeEach
  void node() throws Exception {
    root = Files.createTempDirectory("thinvol-dedicated-");
    nodeDataDir = Files.createDirectories(root.resolve("node-data"));
    containerDataDir = Files.createDirectories(root.resolve("container-data"));
    // The node: its data dir a shared mount point, as / is on a systemd host.
    mount("--bind", root.toString(), root.toString());
    mount("--make-private", root.toString());
    mount("--bind", nodeDataDir.toString(), nodeDataDir.toString());
    mount("--make-shared", nodeDataDir.toString());
  }

  @AfterEach
  void release() throws Exception {
    try {
      if (driver != null) {
        driver.close();
      }
    } finally {
      HostCleanup.release(root);
      Catalog.removeTree(root);
    }
  }

  @Test
  @DisplayName(
      "Without its disk the driver lives, writes nothing and refuses volumes; a disk mounted later"
          + " is used without a restart")
  void diskMountedAfterStart() throws Exception {
    driver = startInContainer();

    assertThat(
            driver.csi().identity().probe(ProbeRequest.getDefaultInstance()).getReady().getValue())
        .as("alive for the livenessprobe sidecar")
        .isTrue();
    StatusRuntimeException refused =
        catchThrowableOfType(
            StatusRuntimeException.class,
            () -> driver.csi().createVolume("early", 64 * MIB, Capabilities.mount("ext4"), null));
    assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(refused.getStatus().getDescription())
        .contains("dedicated mount", containerDataDir.toString());
    assertThat(entries(nodeDataDir)).as("written to the root filesystem").isEmpty();

    // The admin mounts the disk on the node; the driver's namespace receives it.
    mount("-t", "tmpfs", "-o", "size=256m", "tmpfs", nodeDataDir.toString());
    String id = createOnceOpened("late");

    assertThat(nodeDataDir.resolve("volumes").resolve(id).resolve("disk.img")).isRegularFile();
    driver
        .csi()
        .controller()
        .deleteVolume(DeleteVolumeRequest.newBuilder().setVolumeId(id).build());
    driver.close();
    driver = null;
    host.run(TIMEOUT, List.of("umount", nodeDataDir.toString()));
    assertThat(entries(nodeDataDir)).as("left under the disk on the root filesystem").isEmpty();
  }

  /** CreateVolume, retried as the provisioner does while the driver is still opening the disk. */
  private String createOnceOpened(String name) throws InterruptedException {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (true) {
      try {
        return driver.csi().createVolume(name, 64 * MIB, Capabilities.mount("ext4"), null);
      } catch (StatusRuntimeException e) {
        if (e.getStatus().getCode() != Status.Code.UNAVAILABLE || System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(200);
      }
    }
  }

  private DriverProcess startInContainer() throws Exception {
    List<String> container =
        List.of(
            "unshare",
            "--mount",
            "--propagation",
            "unchanged",
            "--",
            "sh",
            "-ec",
            "mount --bind \"$1\" \"$2\"; mount --make-rslave \"$2\"; shift 2;"
                + " exec env THINVOL_DATA_DIR_DEDICATED_MOUNT=true \"$@\"",
            "sh",
            nodeDataDir.toString(),
            containerDataDir.toString());
    return DriverProcess.start(root, "node-a", container, containerDataDir);
  }

  private void mount(String... arguments) {
    host.run(TIMEOUT, Stream.concat(Stream.of("mount"), Stream.of(arguments)).toList());
  }

  private static List<Path> entries(Path dir) throws Exception {
    try (Stream<Path> list = Files.list(dir)) {
      return list.toList();
    }
  }
}
