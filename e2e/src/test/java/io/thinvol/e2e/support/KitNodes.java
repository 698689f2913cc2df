package io.thinvol.e2e.support;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The kit's nodes as the host sees them: the main node is the host itself; a node {@code
 * add-node.sh N} joined keeps its kubelet and data dirs under {@code $KUBE_E2E_DIR/nodes/N} and
 * runs in namespaces of its own, held by a process recorded in that folder. The kit's scripts stop
 * such a node (its kubelet, containerd and pods die, as when a machine loses power) and bring it
 * back with its disks (a reboot).
 */
public final class KitNodes {

  private static final Pattern JOINED = Pattern.compile(".*?(\\d+)$");
  private static final Path HOST_DATA_ROOT = Path.of("/var/lib/thinvol");
  private static final Duration READY_LIMIT = Duration.ofMinutes(2);
  private static final String OUT_OF_SERVICE = "node.kubernetes.io/out-of-service";

  private final KubernetesClient client;
  private final E2eSettings settings;

  public KitNodes(KubernetesClient client, E2eSettings settings) {
    this.client = client;
    this.settings = settings;
  }

  /** The node that is this host: its data dir and mounts are the host's own. */
  public String hostNode() {
    return settings.hostNode();
  }

  /**
   * A node the kit joined beside the host's, Ready and with its state folder on this host; empty on
   * a one-node cluster or where the kit's scripts are not at hand.
   */
  public Optional<String> joinedNode() {
    if (settings.kit().isEmpty()) {
      return Optional.empty();
    }
    return client.nodes().list().getItems().stream()
        .map(n -> n.getMetadata().getName())
        .filter(name -> !name.equals(hostNode()))
        .filter(name -> number(name).map(n -> Files.isDirectory(stateDir(n))).orElse(false))
        .sorted()
        .findFirst();
  }

  /** Where a folder of the node's ({@code /var/lib/thinvol/...} there) is seen from the host. */
  public Path hostPath(String node, Path onNode) {
    if (node.equals(hostNode())) {
      return onNode;
    }
    if (!onNode.startsWith(HOST_DATA_ROOT)) {
      throw new IllegalArgumentException(onNode + " is not under " + HOST_DATA_ROOT);
    }
    return stateDir(requireNumber(node))
        .resolve("thinvol")
        .resolve(HOST_DATA_ROOT.relativize(onNode));
  }

  /**
   * Stops a joined node as a power loss would: its kubelet, kube-proxy, containerd and pods die,
   * its loop devices are detached (as a reboot would), its Node object stays and turns NotReady.
   */
  public void powerOff(String node) {
    kit().run(Map.of("DETACH_LOOPS", "1"), "stop-cluster.sh", "--node", requireNumber(node));
  }

  /**
   * Cuts a joined node off the network at once (the host's end of its veth down), as a partition
   * does: its kubelet, drivers and pods keep running but reach nothing, and nothing reaches them.
   * {@link #powerOff} and {@link #powerOn} end it (the veth goes and comes with the node).
   */
  public void partition(String node) {
    Host.run("ip", "link", "set", "tvnode" + requireNumber(node), "down");
  }

  /** Brings a stopped joined node back with its disks, and waits for it to be Ready. */
  public void powerOn(String node) {
    String number = requireNumber(node);
    kit().run(Map.of(), List.of("stop-cluster.sh", "--node", number), "add-node.sh", number);
    awaitReady(node);
  }

  /**
   * Brings a joined node back after a step that cut it off or stopped it, also one that failed
   * half-way: a node that is not Ready is stopped (which also removes what a partition or a crash
   * left) and started again; a Node object deleted meanwhile is registered again by its kubelet.
   */
  public void restore(String node) {
    boolean ready =
        Optional.ofNullable(client.nodes().withName(node).get()).map(KitNodes::ready).orElse(false);
    if (!ready) {
      powerOff(node);
      powerOn(node);
    }
    outOfService(node, false);
  }

  /**
   * Adds ({@code true}) or removes the {@code node.kubernetes.io/out-of-service} taint, as an admin
   * does with {@code kubectl taint} once a node is known to be shut down (a non-graceful node
   * shutdown) and again once it is back.
   */
  public void outOfService(String node, boolean fenced) {
    client
        .nodes()
        .withName(node)
        .edit(
            n -> {
              List<Taint> taints =
                  new ArrayList<>(
                      Optional.ofNullable(n.getSpec().getTaints()).orElse(List.of()).stream()
                          .filter(t -> !OUT_OF_SERVICE.equals(t.getKey()))
                          .toList());
              if (fenced) {
                taints.add(new Taint("NoExecute", OUT_OF_SERVICE, null, "nodeshutdown"));
              }
              n.getSpec().setTaints(taints.isEmpty() ? null : taints);
              return n;
            });
  }

  public void awaitReady(String node) {
    Waits.untilTrue(
        "node " + node + " to be Ready",
        READY_LIMIT,
        () ->
            Optional.ofNullable(client.nodes().withName(node).get())
                .map(KitNodes::ready)
                .orElse(false));
  }

  /** Whether the node's kubelet says it is Ready. */
  public static boolean ready(Node node) {
    return node.getStatus() != null
        && node.getStatus().getConditions().stream()
            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  /** As {@code kubectl cordon} ({@code true}) and {@code kubectl uncordon} ({@code false}). */
  public void cordon(String node, boolean unschedulable) {
    client
        .nodes()
        .withName(node)
        .edit(
            n -> {
              n.getSpec().setUnschedulable(unschedulable ? true : null);
              return n;
            });
  }

  /** As {@code kubectl annotate node}; a null value removes the annotation. */
  public void annotate(String node, String key, String value) {
    client
        .nodes()
        .withName(node)
        .edit(
            n -> {
              Map<String, String> annotations =
                  new java.util.HashMap<>(
                      Optional.ofNullable(n.getMetadata().getAnnotations()).orElse(Map.of()));
              if (value == null) {
                annotations.remove(key);
              } else {
                annotations.put(key, value);
              }
              n.getMetadata().setAnnotations(annotations);
              return n;
            });
  }

  /**
   * The bytes the host has sent to a joined node over its veth: what crossed the network to that
   * node, the pulls of its driver included.
   */
  public long bytesSentTo(String node) {
    Path counter = Path.of("/sys/class/net/tvnode" + requireNumber(node) + "/statistics/tx_bytes");
    try {
      return Long.parseLong(Files.readString(counter).trim());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A command run in the joined node's mount namespace (its mounts, its data dir). */
  public String inNode(String node, String... command) {
    List<String> line =
        new ArrayList<>(List.of("nsenter", "--target", holder(node), "--mount", "--"));
    line.addAll(List.of(command));
    return Host.run(Map.of(), line);
  }

  /** The joined node's mount points whose line in its mountinfo names any of {@code needles}. */
  public List<String> mountsNaming(String node, String... needles) {
    return inNode(node, "cat", "/proc/self/mountinfo")
        .lines()
        .map(Host::unescape)
        .filter(line -> java.util.Arrays.stream(needles).anyMatch(line::contains))
        .toList();
  }

  private String holder(String node) {
    Path pids = stateDir(requireNumber(node)).resolve("pids");
    try {
      return Files.readAllLines(pids).stream()
          .filter(l -> l.startsWith("sleep "))
          .map(l -> l.substring(6).trim())
          .findFirst()
          .orElseThrow(
              () -> new AssertionError("node " + node + " is not running: no holder in " + pids));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private KitScripts kit() {
    return new KitScripts(settings.kit().orElseThrow());
  }

  private Path stateDir(String number) {
    return settings.kubeDir().resolve("nodes").resolve(number);
  }

  private static Optional<String> number(String node) {
    Matcher matcher = JOINED.matcher(node);
    return matcher.matches() ? Optional.of(matcher.group(1)) : Optional.empty();
  }

  private String requireNumber(String node) {
    if (node.equals(hostNode())) {
      throw new IllegalArgumentException(node + " is the host's node, not one the kit joined");
    }
    return number(node).orElseThrow(() -> new IllegalArgumentException(node + " has no number"));
  }
}
