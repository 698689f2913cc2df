package io.thinvol.api.kube;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kubernetes Events on an object, so {@code kubectl describe} tells what happened to it. The API
 * server accepts an Event only in its involved object's namespace, and in {@value
 * #CLUSTER_SCOPED_NAMESPACE} for a cluster-scoped object (whose reference has no namespace).
 */
public final class Events {

  public static final String CLUSTER_SCOPED_NAMESPACE = "default";

  private static final Logger log = LoggerFactory.getLogger(Events.class);

  private final KubernetesClient client;
  private final Clock clock;

  public Events(KubernetesClient client, Clock clock) {
    this.client = client;
    this.clock = clock;
  }

  /** Where the API server accepts Events about {@code object}. */
  public static String namespaceFor(HasMetadata object) {
    String namespace = object.getMetadata().getNamespace();
    return namespace == null || namespace.isEmpty() ? CLUSTER_SCOPED_NAMESPACE : namespace;
  }

  public void normal(HasMetadata object, String reason, String message) {
    record(object, "Normal", reason, message);
  }

  public void warning(HasMetadata object, String reason, String message) {
    record(object, "Warning", reason, message);
  }

  private void record(HasMetadata object, String type, String reason, String message) {
    String now = clock.instant().toString();
    String namespace = namespaceFor(object);
    try {
      client
          .v1()
          .events()
          .inNamespace(namespace)
          .resource(
              new EventBuilder()
                  .withNewMetadata()
                  .withName(object.getMetadata().getName() + "." + UUID.randomUUID())
                  .withNamespace(namespace)
                  .endMetadata()
                  .withInvolvedObject(
                      new ObjectReferenceBuilder()
                          .withApiVersion(object.getApiVersion())
                          .withKind(object.getKind())
                          .withName(object.getMetadata().getName())
                          .withNamespace(object.getMetadata().getNamespace())
                          .withUid(object.getMetadata().getUid())
                          .build())
                  .withType(type)
                  .withReason(reason)
                  .withMessage(message)
                  .withFirstTimestamp(now)
                  .withLastTimestamp(now)
                  .withCount(1)
                  .withNewSource("thinvol-operator", null)
                  .build())
          .create();
    } catch (KubernetesClientException e) {
      // An event is a courtesy; failing to record one must not fail the reconcile.
      log.warn(
          "cannot record event {} on {} {}: {}",
          reason,
          object.getKind(),
          object.getMetadata().getName(),
          e.getMessage());
    }
  }
}
