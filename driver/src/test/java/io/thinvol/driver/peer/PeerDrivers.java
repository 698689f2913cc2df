package io.thinvol.driver.peer;

import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.thinvol.driver.DriverProcess;
import io.thinvol.driver.SelfSignedPair;
import io.thinvol.driver.auth.MockTokenReviews;
import io.thinvol.driver.auth.ServiceAccountTokens;
import io.thinvol.driver.config.AddonsConfig;
import io.thinvol.driver.host.HostCleanup;
import io.thinvol.driver.store.Catalog;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Two nodes' drivers as the DaemonSet runs them: each in its own process on its own data dir, both
 * serving the CSI-Addons TLS port with the one certificate of the backend's Secret, both forwarding
 * ControllerModifyVolume with the node ServiceAccount's projected token. The fabric8 mock API
 * server answers their TokenReviews and lists the PersistentVolumes and driver pods.
 */
final class PeerDrivers implements AutoCloseable {

  static final String NAMESPACE = "thinvol-system";
  static final String NODE_ACCOUNT = NAMESPACE + ":thinvol-test-node";
  static final String NODE_USER = "system:serviceaccount:" + NODE_ACCOUNT;
  static final String SELECTOR = "app.kubernetes.io/name=thinvol-node,thinvol.io/backend=test";
  static final String DRIVER = "test.thinvol.io";
  static final String TOPOLOGY_KEY = "topology.thinvol.io/node";
  static final String KEEP_LOGS = "thinvol.bench.logs";

  private final KubernetesMockServer server;
  private final ServiceAccountTokens tokens = new ServiceAccountTokens();
  private final MockTokenReviews reviews;
  private final Path root;
  private final Map<String, Integer> ports = new LinkedHashMap<>();
  // Fixed too: an ephemeral HTTP port of a restarted driver may be the TLS port it freed on stop.
  private final Map<String, Integer> httpPorts = new LinkedHashMap<>();
  private final Map<String, DriverProcess> drivers = new LinkedHashMap<>();
  private final List<StandInPeer> standIns = new ArrayList<>();

  PeerDrivers(KubernetesMockServer server) throws Exception {
    this(server, List.of("node-a", "node-b"));
  }

  /** Drivers on {@code nodes} only: a test may stand in for another node's driver. */
  PeerDrivers(KubernetesMockServer server, List<String> nodes) throws Exception {
    this(server, nodes, Path.of(System.getProperty("java.io.tmpdir")));
  }

  /** Their data dirs under {@code parent}: a filesystem of the caller's choosing. */
  PeerDrivers(KubernetesMockServer server, List<String> nodes, Path parent) throws Exception {
    this.server = server;
    this.reviews = MockTokenReviews.on(server);
    this.root = Files.createTempDirectory(parent, "thinvol-peers-");
    Files.createDirectories(root.resolve("tls"));
    SelfSignedPair.write(
        certificate(),
        root.resolve("tls/tls.key"),
        "thinvol-test-node.thinvol-system.svc",
        "subjectAltName=DNS:thinvol-test-node.thinvol-system.svc,DNS:localhost");
    try {
      for (String node : nodes) {
        ports.put(node, freePort());
        httpPorts.put(node, freePort());
        Files.createDirectories(root.resolve(node));
        writeToken(node, nodeToken());
        start(node);
        servePod(node);
      }
    } catch (Exception | Error e) {
      close();
      throw e;
    }
  }

  /** A token the cluster issued to the node ServiceAccount for the addons audience. */
  String nodeToken() {
    return reviews.issued(
        tokens.issue(NODE_ACCOUNT, AddonsConfig.DEFAULT_TOKEN_AUDIENCE, inAnHour()), NODE_USER);
  }

  /** A token the cluster issued to {@code account} for the addons audience. */
  String tokenOf(String account) {
    return reviews.issued(
        tokens.issue(account, AddonsConfig.DEFAULT_TOKEN_AUDIENCE, inAnHour()),
        "system:serviceaccount:" + account);
  }

  /** A token the cluster issued to the operator's ServiceAccount, the one the TLS port allows. */
  String operatorToken() {
    return tokenOf(NAMESPACE + ":thinvol-operator");
  }

  /** Shaped like a node token for the addons audience, but not one the cluster issued. */
  String forgedToken() {
    return tokens.forged(AddonsConfig.DEFAULT_TOKEN_AUDIENCE);
  }

  /** Replaces the token {@code node}'s driver forwards with, as the kubelet rotates it. */
  void writeToken(String node, String token) throws IOException {
    Files.writeString(root.resolve(node).resolve("token"), token);
  }

  void start(String node) throws Exception {
    Path dir = root.resolve(node);
    drivers.put(
        node,
        DriverProcess.start(
            dir,
            node,
            List.of(
                "--addons-port=" + ports.get(node),
                "--http-port=" + httpPorts.get(node),
                "--addons-tls-cert=" + certificate(),
                "--addons-tls-key=" + key(),
                "--addons-allowed-serviceaccounts=" + NAMESPACE + ":thinvol-operator",
                "--peer-token-file=" + dir.resolve("token"),
                "--peer-pod-selector=" + SELECTOR,
                "--peer-serviceaccount=" + NODE_ACCOUNT),
            Map.of("THINVOL_KUBE_API_URL", server.url("/"), "POD_NAMESPACE", NAMESPACE)));
    awaitTlsPort(node);
  }

  /** The driver opens its TLS port after its CSI socket: a peer is there once both are. */
  private void awaitTlsPort(String node) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (true) {
      try (Socket probe = new Socket("127.0.0.1", ports.get(node))) {
        return;
      } catch (IOException e) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(node + "'s driver did not open its TLS port", e);
        }
        Thread.sleep(50);
      }
    }
  }

  void stop(String node) {
    drivers.remove(node).close();
  }

  DriverProcess driver(String node) {
    return drivers.get(node);
  }

  int port(String node) {
    return ports.get(node);
  }

  Path certificate() {
    return root.resolve("tls/tls.crt");
  }

  Path key() {
    return root.resolve("tls/tls.key");
  }

  Path dir(String node) {
    return root.resolve(node);
  }

  Path image(String node, String volumeId) {
    return root.resolve(node).resolve("data/volumes").resolve(volumeId).resolve("disk.img");
  }

  Path meta(String node, String volumeId) {
    return root.resolve(node).resolve("data/volumes").resolve(volumeId).resolve("meta.json");
  }

  /** The cluster's PersistentVolumes: one per volume, placed on its node by node affinity. */
  void persistentVolumes(Map<String, String> nodeByVolume) {
    List<Object> items = new ArrayList<>();
    // A volume of another driver with a colliding handle must not be taken for ours.
    items.add(persistentVolume("pv-other", "other.csi.io", "vol-other", "node-x"));
    nodeByVolume.forEach(
        (volume, node) -> items.add(persistentVolume("pv-" + volume, DRIVER, volume, node)));
    server
        .expect()
        .get()
        .withPath("/api/v1/persistentvolumes?limit=250")
        .andReturn(
            HttpURLConnection.HTTP_OK,
            Map.of("kind", "PersistentVolumeList", "apiVersion", "v1", "items", items))
        .always();
  }

  private static Map<String, Object> persistentVolume(
      String name, String driver, String handle, String node) {
    return Map.of(
        "metadata",
        Map.of("name", name),
        "spec",
        Map.of(
            "csi",
            Map.of("driver", driver, "volumeHandle", handle),
            "nodeAffinity",
            Map.of(
                "required",
                Map.of(
                    "nodeSelectorTerms",
                    List.of(
                        Map.of(
                            "matchExpressions",
                            List.of(
                                Map.of(
                                    "key",
                                    TOPOLOGY_KEY,
                                    "operator",
                                    "In",
                                    "values",
                                    List.of(node)))))))));
  }

  /**
   * {@code node}'s driver pod answers at {@code port} from now on: a test's stand-in for its
   * driver, or a relay in front of it.
   */
  void standIn(String node, int port) {
    boolean served = ports.containsKey(node);
    ports.put(node, port);
    if (!served) {
      servePod(node);
    }
  }

  /**
   * A stand-in that answers for {@code node}'s driver as {@code ending} says; closed with these.
   */
  StandInPeer standIn(String node, StandInPeer.Ending ending) throws Exception {
    int port = freePort();
    StandInPeer standIn = new StandInPeer(port, certificate(), key(), ending);
    standIns.add(standIn);
    standIn(node, port);
    return standIn;
  }

  /** Every node's driver pod, as the LIST without a field selector returns them. */
  void servePodList() {
    server
        .expect()
        .get()
        .withPath(
            "/api/v1/namespaces/thinvol-system/pods?labelSelector=app.kubernetes.io%2Fname%3D"
                + "thinvol-node%2Cthinvol.io%2Fbackend%3Dtest")
        .andReply(
            HttpURLConnection.HTTP_OK,
            request ->
                Map.of(
                    "kind",
                    "PodList",
                    "apiVersion",
                    "v1",
                    "items",
                    ports.keySet().stream().map(this::pod).toList()))
        .always();
  }

  /** The DaemonSet's pod on {@code node}, as the field-selected LIST returns it (its port now). */
  private void servePod(String node) {
    server
        .expect()
        .get()
        .withPath(
            "/api/v1/namespaces/thinvol-system/pods?labelSelector=app.kubernetes.io%2Fname%3D"
                + "thinvol-node%2Cthinvol.io%2Fbackend%3Dtest&fieldSelector=spec.nodeName%3D"
                + node)
        .andReply(
            HttpURLConnection.HTTP_OK,
            request -> Map.of("kind", "PodList", "apiVersion", "v1", "items", List.of(pod(node))))
        .always();
  }

  private Map<String, Object> pod(String node) {
    return Map.of(
        "metadata",
        Map.of("name", "thinvol-test-node-" + node, "namespace", NAMESPACE),
        "spec",
        Map.of(
            "nodeName",
            node,
            "containers",
            List.of(
                Map.of(
                    "name",
                    "driver",
                    "ports",
                    List.of(Map.of("name", "addons", "containerPort", ports.get(node)))))),
        "status",
        Map.of(
            "phase",
            "Running",
            "podIP",
            "127.0.0.1",
            "conditions",
            List.of(Map.of("type", "Ready", "status", "True"))));
  }

  private static Instant inAnHour() {
    return Instant.now().plus(Duration.ofHours(1));
  }

  /**
   * The drivers' logs, kept in the directory {@value #KEEP_LOGS} names (a benchmark's: what each
   * step of a copy took), as {@code <data dirs>-<node>.log}.
   */
  private void keepLogs() throws IOException {
    String kept = System.getProperty(KEEP_LOGS, "");
    if (kept.isEmpty()) {
      return;
    }
    Path into = Files.createDirectories(Path.of(kept));
    for (String node : ports.keySet()) {
      Path log = root.resolve(node).resolve("driver.log");
      if (Files.exists(log)) {
        Files.copy(log, into.resolve(root.getFileName() + "-" + node + ".log"));
      }
    }
  }

  /** A port free now and not given to any node of this cluster yet. */
  private int freePort() throws IOException {
    while (true) {
      try (ServerSocket free = new ServerSocket(0)) {
        int port = free.getLocalPort();
        if (!ports.containsValue(port) && !httpPorts.containsValue(port)) {
          return port;
        }
      }
    }
  }

  @Override
  public void close() throws IOException {
    for (StandInPeer standIn : standIns) {
      try {
        standIn.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    standIns.clear();
    drivers.values().forEach(DriverProcess::close);
    drivers.clear();
    keepLogs();
    List<String> leaked = HostCleanup.release(root);
    Catalog.removeTree(root);
    if (!leaked.isEmpty()) {
      throw new IllegalStateException("left behind: " + leaked);
    }
  }
}
