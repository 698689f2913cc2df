package io.thinvol.addons;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.api.kube.Events;
import io.thinvol.api.v1alpha1.ReclaimSpaceCronJob;
import io.thinvol.api.v1alpha1.ReclaimSpaceJob;
import io.thinvol.api.v1alpha1.StorageBackend;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.Test;

/**
 * Events on each of the three kinds are where {@code kubectl describe} finds them and where the API
 * server accepts them: the cluster-scoped StorageBackend's in {@code default}, the namespaced
 * kinds' in their own namespace.
 */
@EnableKubernetesMockClient(crud = true)
class DescribeEventsTest {

  KubernetesClient client;

  @Test
  void kubectlDescribeFindsTheEventsOfEveryKind() {
    StorageBackend backend =
        create(
            "apiVersion: thinvol.io/v1alpha1\nkind: StorageBackend\nmetadata:\n  name: local\n",
            StorageBackend.class);
    ReclaimSpaceJob job =
        create(
            "apiVersion: thinvol.io/v1alpha1\nkind: ReclaimSpaceJob\nmetadata:\n  name: trim\n"
                + "  namespace: apps\nspec:\n  target:\n    persistentVolumeClaim: data\n",
            ReclaimSpaceJob.class);
    ReclaimSpaceCronJob cron =
        create(
            "apiVersion: thinvol.io/v1alpha1\nkind: ReclaimSpaceCronJob\nmetadata:\n"
                + "  name: weekly\n  namespace: apps\nspec:\n  schedule: \"@weekly\"\n"
                + "  jobTemplate:\n    spec:\n      target:\n        persistentVolumeClaim: data\n",
            ReclaimSpaceCronJob.class);
    Events events = new Events(client, Clock.systemUTC());
    events.normal(backend, "Ready", "the driver runs on every node");
    events.warning(job, "Failed", "the claim is gone");
    events.normal(cron, "SuccessfulCreate", "created job weekly-1");

    assertThat(describe(backend)).extracting(Event::getReason).containsExactly("Ready");
    assertThat(describe(job)).extracting(Event::getReason).containsExactly("Failed");
    assertThat(describe(cron)).extracting(Event::getReason).containsExactly("SuccessfulCreate");
    assertThat(client.v1().events().inAnyNamespace().list().getItems())
        .hasSize(3)
        .allSatisfy(
            event ->
                assertThat(event.getMetadata().getNamespace())
                    .as("namespace of the Event on %s", event.getInvolvedObject().getName())
                    .isEqualTo(acceptedNamespace(event.getInvolvedObject())));
  }

  /**
   * The API server's rule for core/v1 Events: an involved object without a namespace (a
   * cluster-scoped one) takes Events in {@code default}; otherwise the namespaces must match.
   */
  private static String acceptedNamespace(ObjectReference involved) {
    String namespace = involved.getNamespace();
    return namespace == null || namespace.isEmpty() ? "default" : namespace;
  }

  /**
   * As {@code kubectl describe} lists an object's Events: in the object's namespace (every
   * namespace for a cluster-scoped one), with the field selector {@code involvedObject.name,
   * .namespace, .kind, .uid} of the object. The mock API server implements field selectors on
   * {@code metadata} only, so the selector is applied here as the API server applies it (an unset
   * field is the empty string).
   */
  private List<Event> describe(HasMetadata object) {
    String namespace = object.getMetadata().getNamespace();
    Map<String, String> selector =
        Map.of(
            "involvedObject.name", object.getMetadata().getName(),
            "involvedObject.namespace", namespace == null ? "" : namespace,
            "involvedObject.kind", object.getKind(),
            "involvedObject.uid", object.getMetadata().getUid());
    return (namespace == null
            ? client.v1().events().inAnyNamespace()
            : client.v1().events().inNamespace(namespace))
        .list().getItems().stream()
            .filter(event -> selector.equals(fields(event.getInvolvedObject())))
            .toList();
  }

  private static Map<String, String> fields(ObjectReference involved) {
    return Map.of(
        "involvedObject.name", Objects.toString(involved.getName(), ""),
        "involvedObject.namespace", Objects.toString(involved.getNamespace(), ""),
        "involvedObject.kind", Objects.toString(involved.getKind(), ""),
        "involvedObject.uid", Objects.toString(involved.getUid(), ""));
  }

  private <T extends HasMetadata> T create(String yaml, Class<T> type) {
    return client.resource(Serialization.unmarshal(yaml, type)).create();
  }
}
