package io.thinvol.operator;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.thinvol.api.v1alpha1.StorageBackend;
import java.time.Clock;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Kubernetes Events on a StorageBackend, so {@code kubectl describe sb} tells what happened. */
public final class Events {

  private static final Logger log = LoggerFactory.getLogger(Events.class);

  private final KubernetesClient client;
  private final String namespace;
  private final Clock clock;

  public Events(KubernetesClient client, String namespace, Clock clock) {
    this.client = client;
    this.namespace = namespace;
    this.clock = clock;
  }

  public void normal(StorageBackend backend, String reason, String message) {
    record(backend, "Normal", reason, message);
  }

  public void warning(StorageBackend backend, String reason, String message) {
    record(backend, "Warning", reason, message);
  }

  private void record(StorageBackend backend, String type, String reason, String message) {
    String now = clock.instant().toString();
    try {
      client
          .v1()
          .events()
          .inNamespace(namespace)
          .resource(
              new EventBuilder()
                  .withNewMetadata()
                  .withName(backend.getMetadata().getName() + "." + UUID.randomUUID())
                  .withNamespace(namespace)
                  .endMetadata()
                  .withInvolvedObject(
                      new ObjectReferenceBuilder()
                          .withApiVersion(backend.getApiVersion())
                          .withKind(backend.getKind())
                          .withName(backend.getMetadata().getName())
                          .withUid(backend.getMetadata().getUid())
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
          "cannot record event {} on {}: {}",
          reason,
          backend.getMetadata().getName(),
          e.getMessage());
    }
  }
}
