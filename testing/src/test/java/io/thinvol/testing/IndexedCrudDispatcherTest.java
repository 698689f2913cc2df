package io.thinvol.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.Dispatcher;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The indexed store answers as the fabric8 mock's own: the same requests against both give the same
 * objects, in the same order, after creates, updates that move an object (a label change), patches,
 * deletes with and without finalizers, in several namespaces and cluster-wide.
 */
class IndexedCrudDispatcherTest {

  private final List<KubernetesMockServer> servers = new ArrayList<>();

  @AfterEach
  void stop() {
    servers.forEach(KubernetesMockServer::destroy);
  }

  @Test
  void answersAsTheUnindexedMock() {
    KubernetesClient plain = start(new KubernetesCrudDispatcher());
    KubernetesClient indexed = start(new IndexedCrudDispatcher());

    List<String> plainAnswers = story(plain);
    List<String> indexedAnswers = story(indexed);

    assertThat(indexedAnswers).isEqualTo(plainAnswers);
    assertThat(indexedAnswers)
        .as("the story reads something in each step (a check that cannot fail is no check)")
        .contains(
            "all in a: [a/one, a/three, a/two]",
            "get a/two: two=blue",
            "get a/one after delete: none",
            "get a/kept after delete: marked",
            "labelled red in a: [a/three]");
  }

  /** Requests and what they answer, as text. */
  private static List<String> story(KubernetesClient client) {
    List<String> answers = new ArrayList<>();
    for (String ns : List.of("a", "b")) {
      client
          .namespaces()
          .resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
          .create();
    }
    create(client, "a", "one", "red");
    create(client, "a", "two", "red");
    create(client, "b", "one", "red");
    create(client, "a", "three", "red");
    client
        .configMaps()
        .inNamespace("a")
        .withName("three")
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"data\":{\"k\":\"v\"}}");
    // A label change moves the object to the end of the mock's store.
    client.configMaps().inNamespace("a").withName("two").edit(c -> label(c, "blue"));
    answers.add("all in a: " + names(client.configMaps().inNamespace("a").list().getItems()));
    answers.add("everywhere: " + names(client.configMaps().inAnyNamespace().list().getItems()));
    answers.add(
        "get a/two: " + describe(client.configMaps().inNamespace("a").withName("two").get()));
    answers.add(
        "get b/two: " + describe(client.configMaps().inNamespace("b").withName("two").get()));
    client.configMaps().inNamespace("a").withName("one").delete();
    answers.add(
        "get a/one after delete: "
            + describe(client.configMaps().inNamespace("a").withName("one").get()));
    ConfigMap kept =
        new ConfigMapBuilder()
            .withNewMetadata()
            .withName("kept")
            .withNamespace("a")
            .withFinalizers("example.com/hold")
            .endMetadata()
            .build();
    client.resource(kept).create();
    client.configMaps().inNamespace("a").withName("kept").delete();
    ConfigMap marked = client.configMaps().inNamespace("a").withName("kept").get();
    answers.add(
        "get a/kept after delete: "
            + (marked != null && marked.getMetadata().getDeletionTimestamp() != null
                ? "marked"
                : describe(marked)));
    answers.add(
        "labelled red in a: "
            + names(
                client.configMaps().inNamespace("a").withLabel("colour", "red").list().getItems()));
    answers.add("namespaces: " + names(client.namespaces().list().getItems()));
    client.configMaps().inNamespace("b").withName("one").delete();
    answers.add(
        "configmaps in b: " + names(client.configMaps().inNamespace("b").list().getItems()));
    return answers;
  }

  private static void create(KubernetesClient client, String ns, String name, String colour) {
    client
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(ns)
                .withLabels(Map.of("colour", colour))
                .endMetadata()
                .withData(Map.of(name, colour))
                .build())
        .create();
  }

  private static ConfigMap label(ConfigMap map, String colour) {
    map.getMetadata().setLabels(Map.of("colour", colour));
    map.setData(Map.of(map.getMetadata().getName(), colour));
    return map;
  }

  private static String describe(ConfigMap map) {
    return map == null
        ? "none"
        : map.getData().entrySet().stream()
            .map(e -> e.getKey() + "=" + e.getValue())
            .toList()
            .toString()
            .replaceAll("[\\[\\]]", "");
  }

  private static String names(List<? extends HasMetadata> items) {
    Function<HasMetadata, String> name =
        o ->
            (o.getMetadata().getNamespace() == null ? "" : o.getMetadata().getNamespace() + "/")
                + o.getMetadata().getName();
    return items.stream().map(name).toList().toString();
  }

  private KubernetesClient start(Dispatcher dispatcher) {
    KubernetesMockServer server =
        new KubernetesMockServer(
            new Context(Serialization.jsonMapper()),
            new MockWebServer(),
            new HashMap<>(),
            dispatcher,
            false);
    server.init();
    servers.add(server);
    return server.createClient();
  }
}
