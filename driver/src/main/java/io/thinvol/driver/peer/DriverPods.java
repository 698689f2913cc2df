package io.thinvol.driver.peer;

import io.grpc.Status;
import io.thinvol.driver.core.CsiException;
import io.thinvol.driver.kube.ApiServer;
import io.thinvol.driver.kube.JsonTree;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

/**
 * The driver pod of a node and its CSI-Addons TLS port, found as the operator's reclaimer finds it:
 * the DaemonSet's pods (by label) on that node (field selector {@code spec.nodeName}, so the API
 * server returns one pod, two while a rollout replaces it), the Ready one's IP, and the container
 * port named {@value #PORT_NAME}. A pod that runs but is not Ready (its driver still starting, or
 * its readiness probe failing) is not called: the CO's retry finds it once it is. Asked for every
 * forwarded call: pods come and go with new IPs, the look-up is one small request.
 */
final class DriverPods {

  static final String PORT_NAME = "addons";

  private final Supplier<ApiServer> api;
  private final String namespace;
  private final String selector;
  private final int defaultPort;

  DriverPods(Supplier<ApiServer> api, String namespace, String selector, int defaultPort) {
    this.api = api;
    this.namespace = namespace;
    this.selector = selector;
    this.defaultPort = defaultPort;
  }

  /** The Ready driver pod on {@code node}; UNAVAILABLE, saying why, when there is none. */
  PeerEndpoint on(String node) {
    JsonTree pods;
    try {
      pods =
          api.get()
              .get(
                  "/api/v1/namespaces/"
                      + encode(namespace)
                      + "/pods?labelSelector="
                      + encode(selector)
                      + "&fieldSelector="
                      + encode("spec.nodeName=" + node));
    } catch (IllegalStateException e) {
      throw new CsiException(
          Status.Code.UNAVAILABLE,
          "cannot look up the driver pod of node " + node + " (list pods): " + e.getMessage());
    }
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
