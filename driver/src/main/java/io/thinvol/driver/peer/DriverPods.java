package io.thinvol.driver.peer;

import io.grpc.Status;
import io.thinvol.driver.core.CsiException;
import io.thinvol.driver.kube.ApiServer;
import io.thinvol.driver.kube.JsonTree;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * The driver pod of a node and its CSI-Addons TLS port, found as the operator's reclaimer finds it:
 * the DaemonSet's pods (by label) on that node (field selector {@code spec.nodeName}, so the API
 * server returns one pod, two while a rollout replaces it), the Ready one's IP, and the container
 * port named {@value #PORT_NAME}. A pod that runs but is not Ready (its driver still starting, or
 * its readiness probe failing) is not called: the CO's retry finds it once it is. Asked for every
 * forwarded call: pods come and go with new IPs, the look-up is one small request.
 */
public final class DriverPods {

  static final String PORT_NAME = "addons";

  private final Supplier<ApiServer> api;
  private final String namespace;
  private final String selector;
  private final int defaultPort;

  public DriverPods(Supplier<ApiServer> api, String namespace, String selector, int defaultPort) {
    this.api = api;
    this.namespace = namespace;
    this.selector = selector;
    this.defaultPort = defaultPort;
  }

  /** The Ready driver pod on {@code node}; UNAVAILABLE, saying why, when there is none. */
  public PeerEndpoint on(String node) {
    JsonTree pods = list("spec.nodeName=" + node, "node " + node);
    String seen = null;
    for (JsonTree pod : pods.path("items")) {
      String name = pod.path("metadata").path("name").asText();
      seen = name;
      String ip = pod.path("status").path("podIP").asText("");
      if (pod.path("metadata").has("deletionTimestamp") || !ready(pod) || ip.isEmpty()) {
        continue;
      }
      return new PeerEndpoint(node, name, ip, addonsPort(pod));
    }
    throw new CsiException(
        Status.Code.UNAVAILABLE,
        seen == null
            ? String.format(
                "no driver pod (%s in namespace %s) runs on node %s, which holds the volume; is"
                    + " the node up and selected by the StorageBackend?",
                selector, namespace, node)
            : String.format(
                "driver pod %s on node %s, which holds the volume, is not ready", seen, node));
  }

  /**
   * The Ready driver pod of every node but {@code except}, and the nodes whose driver pod is not
   * Ready (they cannot be asked now).
   */
  public Peers all(String except) {
    JsonTree pods = list("", "every node");
    List<PeerEndpoint> ready = new ArrayList<>();
    Set<String> notReady = new TreeSet<>();
    for (JsonTree pod : pods.path("items")) {
      String node = pod.path("spec").path("nodeName").asText("");
      if (node.isEmpty() || node.equals(except)) {
        continue;
      }
      String ip = pod.path("status").path("podIP").asText("");
      if (pod.path("metadata").has("deletionTimestamp") || !ready(pod) || ip.isEmpty()) {
        notReady.add(node);
        continue;
      }
      ready.add(
          new PeerEndpoint(node, pod.path("metadata").path("name").asText(), ip, addonsPort(pod)));
    }
    ready.forEach(peer -> notReady.remove(peer.node()));
    return new Peers(ready, notReady);
  }

  /** The driver pods that can be called, and the nodes whose pod cannot be now. */
  public record Peers(List<PeerEndpoint> ready, Set<String> notReady) {}

  private JsonTree list(String fieldSelector, String where) {
    String path =
        "/api/v1/namespaces/" + encode(namespace) + "/pods?labelSelector=" + encode(selector);
    if (!fieldSelector.isEmpty()) {
      path += "&fieldSelector=" + encode(fieldSelector);
    }
    try {
      return api.get().get(path);
    } catch (IllegalStateException e) {
      throw new CsiException(
          Status.Code.UNAVAILABLE,
          "cannot look up the driver pods of " + where + " (list pods): " + e.getMessage());
    }
  }

  private static boolean ready(JsonTree pod) {
    for (JsonTree condition : pod.path("status").path("conditions")) {
      if ("Ready".equals(condition.path("type").asText())) {
        return "True".equals(condition.path("status").asText());
      }
    }
    return false;
  }

  private int addonsPort(JsonTree pod) {
    for (JsonTree container : pod.path("spec").path("containers")) {
      for (JsonTree port : container.path("ports")) {
        if (PORT_NAME.equals(port.path("name").asText()) && port.has("containerPort")) {
          return port.path("containerPort").asInt();
        }
      }
    }
    return defaultPort;
  }

  private static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }
}
