package io.thinvol.driver;

import io.thinvol.driver.cli.HeldCallDriver;
import io.thinvol.driver.host.HostCleanup;
import io.thinvol.driver.host.MountTable;
import io.thinvol.driver.host.ProcessCommandRunner;
import io.thinvol.driver.store.Catalog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A node in a private mount namespace of its own (held by a sleeping {@code unshare}), so that its
 * kubelet dir can sit in a layout the host must not be put in: nothing mounted here reaches the
 * host. Drivers run as {@link ContainerNode}'s do, each in a fresh namespace made from the node's,
 * with the data dir bind-mounted; the kubelet dir's mounts are the node's and outlive them. The
 * test reads the node's mounts with {@link #mountTable()} and its files through {@link #seen}.
 *
 * <p>Closing releases every mount under the kubelet dir and every loop device under the node and
 * fails on any it had to release.
 */
public final class NamespacedNode implements AutoCloseable {

  /** Where the kubelet dir's mounts come from. */
  public enum KubeletLayout {
    /** A mount of its own, rshared, under a private parent. */
    OWN_MOUNT,
    /**
     * Bound onto itself under a shared parent (systemd makes {@code /} shared), as containerised
     * kubelets set it up: the bind is a peer of its parent, so every mount below it is propagated
     * into the parent too and the mount table lists each of them twice.
     */
    SELF_BOUND_UNDER_SHARED_PARENT
  }

  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private final ProcessCommandRunner runner = new ProcessCommandRunner();
  private final Path root;
  private final Path kubelet;
  private final Process holder;

  public NamespacedNode(KubeletLayout layout) throws IOException, InterruptedException {
    root = Files.createTempDirectory("thinvol-nsnode-");
    Path sharedParent = root.resolve("host"); // the node's "/"
    kubelet = sharedParent.resolve("kubelet");
    Files.createDirectories(hostDataDir());
    Files.createDirectories(containerDataDir());
    Files.createDirectories(kubelet);
    holder =
        new ProcessBuilder("unshare", "--mount", "--propagation", "private", "sleep", "infinity")
            .redirectErrorStream(true)
            .start();
    try {
      awaitOwnNamespace();
      // the container's own mounts (its data dir bind) stay in its namespace
      inNode("mount", "--bind", root.toString(), root.toString());
      inNode("mount", "--make-private", root.toString());
      if (layout == KubeletLayout.SELF_BOUND_UNDER_SHARED_PARENT) {
        inNode("mount", "--bind", sharedParent.toString(), sharedParent.toString());
        inNode("mount", "--make-rshared", sharedParent.toString());
      }
      inNode("mount", "--bind", kubelet.toString(), kubelet.toString());
      inNode("mount", "--make-rshared", kubelet.toString());
    } catch (IOException | RuntimeException e) {
      holder.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      Catalog.removeTree(root);
      throw e;
    }
  }

  private void awaitOwnNamespace() throws IOException, InterruptedException {
    Path own = Path.of("/proc/self/ns/mnt");
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (!holder.isAlive()
        || Files.readSymbolicLink(namespace()).equals(Files.readSymbolicLink(own))) {
      if (!holder.isAlive() || System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "unshare did not make a mount namespace: "
                + new String(holder.getInputStream().readAllBytes()));
      }
      Thread.sleep(10);
    }
  }

  private Path namespace() {
    return Path.of("/proc", Long.toString(holder.pid()), "ns", "mnt");
  }

  /** Runs a command in the node's mount namespace; its output. */
  public String inNode(String... argv) {
    return runner.run(TIMEOUT, entering(List.of(argv))).stdout();
  }

  /** {@code command} run in the node's mount namespace. */
  private List<String> entering(List<String> command) {
    List<String> entered = new ArrayList<>(List.of("nsenter", "--mount=" + namespace(), "--"));
    entered.addAll(command);
    return entered;
  }

  /** The node's mounts. */
  public MountTable mountTable() {
    return MountTable.read(Path.of("/proc", Long.toString(holder.pid()), "mountinfo"));
  }

  /** {@code path} as the node sees it, mounts included, for this process to read and write. */
  public Path seen(Path path) {
    return Path.of("/proc/" + holder.pid() + "/root" + path.toAbsolutePath());
  }

  /** A driver in a new container: a fresh mount namespace with the data dir bind-mounted. */
  public DriverProcess startDriver(String nodeId) throws IOException, InterruptedException {
    return DriverProcess.start(root, nodeId, container(), containerDataDir());
  }

  /**
   * A driver whose calls of {@code heldCall} ({@code mount --bind}, {@code umount}) never return,
   * so it can be killed in the middle of one; {@link #awaitHeld()} waits for that moment.
   */
  public DriverProcess startHeldDriver(String nodeId, String heldCall)
      throws IOException, InterruptedException {
    return DriverProcess.start(
        root,
        nodeId,
        HeldCallDriver.class.getName(),
        container(),
        containerDataDir(),
        Map.of(HeldCallDriver.HELD, heldCall));
  }

  public void awaitHeld() throws IOException, InterruptedException {
    FrozenWrites.awaitFile(root.resolve("call-held"));
    Files.delete(root.resolve("call-held"));
  }

  private List<String> container() {
    return entering(ContainerNode.container(hostDataDir(), containerDataDir()));
  }

  public Path hostDataDir() {
    return root.resolve("host-data");
  }

  private Path containerDataDir() {
    return root.resolve("container-data");
  }

  public Path kubelet() {
    return kubelet;
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

  /** The mount points below the kubelet dir, each once. */
  public List<Path> mountsBelowKubelet() {
    return mountTable().mountPointsUnder(kubelet).stream().filter(p -> !p.equals(kubelet)).toList();
  }

  @Override
  public void close() throws IOException, InterruptedException {
    List<String> leaked = new ArrayList<>();
    try {
      for (Path mountPoint : mountsBelowKubelet()) {
        leaked.add("mount " + mountPoint);
        for (int i = 0; i < 8 && mountTable().at(mountPoint).isPresent(); i++) {
          runner.runAllowingFailure(TIMEOUT, entering(List.of("umount", mountPoint.toString())));
        }
      }
    } finally {
      holder.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      leaked.addAll(HostCleanup.release(root));
      Catalog.removeTree(root);
    }
    if (!leaked.isEmpty()) {
      throw new AssertionError("mounts or loop devices the test left behind: " + leaked);
    }
  }
}
