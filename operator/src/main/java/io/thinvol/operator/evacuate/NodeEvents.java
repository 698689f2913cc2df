package io.thinvol.operator.evacuate;

import io.fabric8.kubernetes.api.model.MicroTime;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.thinvol.api.kube.Events;
import java.time.Clock;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Events on a Node, each said once. Three things differ from {@link Events}: {@code kubectl
 * describe node} looks for Events whose involved object's uid is the node's <em>name</em> (as the
 * kubelet records them), so that is the uid given; each Event is named after what it says (node,
 * its uid, reason, a key), so that a reconcile that runs again, also in an operator that restarted,
 * finds it recorded and does not say it twice; and, since such names do not sort by time, each
 * carries its time as an {@code eventTime} (kept to the microsecond) instead of the timestamps
 * (kept to the second), by which kubectl orders the Events of one second by name.
 */
final class NodeEvents {

  private static final Logger log = LoggerFactory.getLogger(NodeEvents.class);

  /** The API server keeps an eventTime to the microsecond, in exactly this form. */
  private static final DateTimeFormatter MICROS =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);

  static final String REPORTING_CONTROLLER = "thinvol.io/node-evacuation";
  static final String ACTION = "Evacuate";

  /** The operator's pod (the API server requires an instance with an eventTime). */
  private static final String INSTANCE =
      System.getenv().getOrDefault("HOSTNAME", "thinvol-operator");

  /** Room for the digest and the dot within a name's 253 characters. */
  private static final int MAX_NODE_PART = 200;

  private final KubernetesClient client;
  private final Clock clock;

  NodeEvents(KubernetesClient client, Clock clock) {
    this.client = client;
    this.clock = clock;
  }

  /**
   * Records the Event unless one of this node, reason and key was recorded (and has not expired).
   *
   * @param key what makes this Event news, e.g. the moves it is about
   */
  void once(Node node, String type, String reason, String key, String message) {
    String nodeName = node.getMetadata().getName();
    String name = name(node, reason, key);
    String namespace = Events.CLUSTER_SCOPED_NAMESPACE;
    String now = MICROS.format(clock.instant());
    try {
      if (client.v1().events().inNamespace(namespace).withName(name).get() != null) {
        return;
      }
      client
          .v1()
          .events()
          .inNamespace(namespace)
          .resource(
              Events.draft(
                      namespace,
                      name,
                      new ObjectReferenceBuilder()
                          .withApiVersion("v1")
                          .withKind("Node")
                          .withName(nodeName)
                          .withUid(nodeName)
                          .build(),
                      type,
                      reason,
                      message)
                  .withEventTime(new MicroTime(now))
                  .withReportingComponent(REPORTING_CONTROLLER)
                  .withReportingInstance(INSTANCE)
                  .withAction(ACTION)
                  .build())
          .create();
      log.info("{} on node {}: {}", reason, nodeName, message);
    } catch (KubernetesClientException e) {
      if (e.getCode() == 409) {
        return; // recorded meanwhile by this reconcile's twin
      }
      // An Event is a courtesy; failing to record one must not fail the evacuation.
      log.warn("cannot record event {} on node {}: {}", reason, nodeName, e.getMessage());
    }
  }

  static String name(Node node, String reason, String key) {
    String nodeName = node.getMetadata().getName();
    String head =
        nodeName.length() <= MAX_NODE_PART ? nodeName : nodeName.substring(0, MAX_NODE_PART);
    String identity = node.getMetadata().getUid() + "\n" + reason + "\n" + key;
    return head.replaceAll("[.-]+$", "") + "." + Digest.hex(identity, 16);
  }
}
