package io.thinvol.driver;

import static org.assertj.core.api.Assertions.assertThat;

import io.thinvol.driver.host.HostCleanup;
import io.thinvol.driver.host.ProcessCommandRunner;
import io.thinvol.driver.store.Catalog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A node as the driver's container sees it. Each driver process runs in a mount namespace of its
 * own ({@code unshare --mount}) where the node's data dir is bind-mounted at the container's path,
 * as a hostPath volume is; that namespace vanishes with the process, as a container's does. The
 * kubelet directory is a shared mount, as on a node, so what a driver mounts there (staging and
 * publish mounts, as with Bidirectional propagation) outlives it and is seen by the next one.
 *
 * <p>Closing releases every mount and loop device under the node and reports what it had to
 * release, apart from its own two mounts.
 */
public final class ContainerNode implements AutoCloseable {

  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private final ProcessCommandRunner runner = new ProcessCommandRunner();
  private final Path root;
  private final Path kubelet;

  public ContainerNode() throws IOException {
    root = Files.createTempDirectory("thinvol-node-");
    kubelet = root.resolve("kubelet");
    Files.createDirectories(hostDataDir());
    Files.createDirectories(containerDataDir());
    Files.createDirectories(kubelet);
    try {
      // private: the container's own mounts stay in its namespace...
      mount("--bind", root.toString(), root.toString());
      mount("--make-private", root.toString());
      // ...and shared: the kubelet dir's mounts are the node's
      mount("--bind", kubelet.toString(), kubelet.toString());
      mount("--make-shared", kubelet.toString());
    } catch (RuntimeException e) {
      HostCleanup.release(root);
      throw e;
    }
  }

  private void mount(String... arguments) {
    List<String> argv = new ArrayList<>(List.of("mount"));
    argv.addAll(List.of(arguments));
    runner.run(TIMEOUT, argv);
  }

  /** A driver in a new container: a fresh mount namespace with the data dir bind-mounted. */
  public DriverProcess startDriver(String nodeId) throws IOException, InterruptedException {
    return startDriver(nodeId, "");
  }

  /**
   * A driver in a container whose {@code /sys} is read-only although it runs privileged, as
   * containerd 1.6 gives a privileged container in a pod's network namespace (its sysfs superblock
   * was mounted read-only by the pod's sandbox and unprivileged containers).
   */
  public DriverProcess startDriverWithReadOnlySysfs(String nodeId)
      throws IOException, InterruptedException {
    return startDriver(nodeId, "mount --make-private /sys; mount -o remount,bind,ro /sys; ");
  }

  private DriverProcess startDriver(String nodeId, String setup)
      throws IOException, InterruptedException {
    return DriverProcess.start(
        root, nodeId, container(hostDataDir(), containerDataDir(), setup), containerDataDir());
  }

  /**
   * The command that runs its arguments as a container would: in a new mount namespace made from
   * the current one, with {@code hostData} bind-mounted at {@code containerData}.
   */
  static List<String> container(Path hostData, Path containerData) {
    return container(hostData, containerData, "");
  }

  private static List<String> container(Path hostData, Path containerData, String setup) {
    return List.of(
        "unshare",
        "--mount",
        "--propagation",
        "unchanged",
        "--",
        "sh",
        "-ec",
        "mount --bind \"$1\" \"$2\"; " + setup + "shift 2; exec \"$@\"",
        "sh",
        hostData.toString(),
        containerData.toString());
  }

  public Path root() {
    return root;
  }

  /** The data dir on the node. */
  public Path hostDataDir() {
    return root.resolve("host-data");
  }

  /** Where the container has it (empty outside the driver's namespace). */
  public Path containerDataDir() {
    return root.resolve("container-data");
  }

  /** A volume's image as the node sees it. */
  public Path image(String volumeId) {
    return hostDataDir().resolve("volumes").resolve(volumeId).resolve("disk.img");
  }

  public Path staging(String name) {
    return kubelet.resolve("plugins/test.thinvol.io/staging").resolve(name);
  }

  public Path target(String name) {
    return kubelet.resolve("pods").resolve(name).resolve("mount");
  }

  public Path blockTarget(String name) {
    return kubelet.resolve("pods").resolve(name).resolve("device");
  }

  @Override
  public void close() throws IOException {
    List<String> leaked = new ArrayList<>(HostCleanup.release(root));
    leaked.remove("mount " + kubelet);
    leaked.remove("mount " + root);
    Catalog.removeTree(root);
    assertThat(leaked).as("mounts or loop devices the test left behind").isEmpty();
  }
}
