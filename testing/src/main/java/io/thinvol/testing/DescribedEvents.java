package io.thinvol.testing;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Events {@code kubectl describe} shows for an object: it lists them by field selector on the
 * involved object's kind, name, namespace and uid, in the object's namespace (for a cluster-scoped
 * object: in every namespace, with an empty involvedObject.namespace).
 */
public final class DescribedEvents {

  private DescribedEvents() {}

  /** The reasons, oldest first. */
  public static List<String> reasons(KubernetesClient client, HasMetadata object) {
    return reasons(
        client,
        object.getKind(),
        object.getMetadata().getNamespace(),
        object.getMetadata().getName(),
        object.getMetadata().getUid());
  }

  /**
   * @param kind null for any kind
   * @param namespace null for a cluster-scoped object
   * @param uid null for any incarnation of the object
   */
  public static List<String> reasons(
      KubernetesClient client, String kind, String namespace, String name, String uid) {
    return events(client, kind, namespace, name, uid).stream().map(Event::getReason).toList();
  }

  /**
   * The Events themselves in {@code kubectl describe}'s order: by last timestamp (to the second, as
   * the server stores it), Events of one second in the server's order (by name); parameters as for
   * {@link #reasons}.
   */
  public static List<Event> events(
      KubernetesClient client, String kind, String namespace, String name, String uid) {
    Map<String, String> fields = new LinkedHashMap<>();
    if (kind != null) {
      fields.put("involvedObject.kind", kind);
    }
    fields.put("involvedObject.name", name);
    fields.put("involvedObject.namespace", namespace == null ? "" : namespace);
    if (uid != null) {
      fields.put("involvedObject.uid", uid);
    }
    var events = client.v1().events();
    var selected =
        namespace == null
            ? events.inAnyNamespace().withFields(fields)
            : events.inNamespace(namespace).withFields(fields);
    // a stable sort, as kubectl's insertion sort of a few Events is
    return selected.list().getItems().stream()
        .sorted(Comparator.comparing(DescribedEvents::time))
        .toList();
  }

  /**
   * kubectl's order: the last timestamp, which the server keeps to the second; an Event without one
   * (a "new" Event) by its eventTime, kept to the microsecond.
   */
  private static Instant time(Event event) {
    if (event.getLastTimestamp() != null && !event.getLastTimestamp().isEmpty()) {
      return Instant.parse(event.getLastTimestamp())
          .truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
    }
    return event.getEventTime() == null || event.getEventTime().getTime() == null
        ? Instant.EPOCH
        : Instant.parse(event.getEventTime().getTime())
            .truncatedTo(java.time.temporal.ChronoUnit.MICROS);
  }
}
