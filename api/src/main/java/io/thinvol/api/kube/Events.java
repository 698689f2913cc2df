package io.thinvol.api.kube;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
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
  private static final java.util.concurrent.atomic.AtomicLong LAST_NAME_NANOS =
      new java.util.concurrent.atomic.AtomicLong();

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

  /**
   * A Warning that repeats under one name per object and reason, so that {@code kubectl describe}
   * shows it once with a count (as client-go's recorder aggregates) rather than as new Events.
   */
  public void recurringWarning(HasMetadata object, String reason, String message) {
    String name =
        object.getMetadata().getName()
            + "."
            + Integer.toHexString(
                java.util.Objects.hash(object.getMetadata().getUid(), reason) & 0x7fffffff)
            + "."
            + reason.toLowerCase(java.util.Locale.ROOT);
    String namespace = namespaceFor(object);
    try {
      if (client.v1().events().inNamespace(namespace).withName(name).get() != null) {
        String now = clock.instant().toString();
        client
            .v1()
            .events()
            .inNamespace(namespace)
            .withName(name)
            .edit(
                event -> {
                  event.setCount(event.getCount() == null ? 2 : event.getCount() + 1);
                  event.setLastTimestamp(now);
                  event.setMessage(message);
                  return event;
                });
        return;
      }
    } catch (KubernetesClientException e) {
      log.warn(
          "cannot update event {} on {}: {}", name, object.getMetadata().getName(), e.getMessage());
      return;
    }
    record(object, "Warning", reason, message, name);
  }

  private void record(HasMetadata object, String type, String reason, String message) {
    record(object, type, reason, message, chronologicalName(object));
  }

  /**
   * The object's name and the time in nanoseconds in hex, as client-go names Events: the API server
   * lists Events by name and stores their timestamps to the second, so {@code kubectl describe}
   * shows Events of one second in the order of their names. Strictly increasing in this process, so
   * also with a clock that stands still.
   */
  /**
   * What every Event of the operator carries: its name and namespace, the object it is about and
   * what it says. The caller adds when it happened (timestamps, or an eventTime) and creates it.
   */
  public static EventBuilder draft(
      String namespace,
      String name,
      ObjectReference involvedObject,
      String type,
      String reason,
      String message) {
    return new EventBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(namespace)
        .endMetadata()
        .withInvolvedObject(involvedObject)
        .withType(type)
        .withReason(reason)
        .withMessage(message)
        .withNewSource("thinvol-operator", null);
  }

  private String chronologicalName(HasMetadata object) {
    java.time.Instant now = clock.instant();
    long nanos = now.getEpochSecond() * 1_000_000_000L + now.getNano();
    return object.getMetadata().getName()
        + "."
        + Long.toHexString(
            LAST_NAME_NANOS.accumulateAndGet(nanos, (last, n) -> Math.max(last + 1, n)));
  }

  private void record(HasMetadata object, String type, String reason, String message, String name) {
    String now = clock.instant().toString();
    String namespace = namespaceFor(object);
    try {
      client
          .v1()
          .events()
          .inNamespace(namespace)
          .resource(
              draft(
                      namespace,
                      name,
                      new ObjectReferenceBuilder()
                          .withApiVersion(object.getApiVersion())
                          .withKind(object.getKind())
                          .withName(object.getMetadata().getName())
                          .withNamespace(object.getMetadata().getNamespace())
                          .withUid(object.getMetadata().getUid())
                          .build(),
                      type,
                      reason,
                      message)
                  .withFirstTimestamp(now)
                  .withLastTimestamp(now)
                  .withCount(1)
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
