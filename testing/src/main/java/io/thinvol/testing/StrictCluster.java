package io.thinvol.testing;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.internal.MockDispatcher;
import io.fabric8.mockwebserver.internal.SimpleRequest;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;

/**
 * The fabric8 mock API server with the {@link StrictApiServer} as its store. Expectations recorded
 * with {@link #mock()} {@code .expect()} answer first: they play what a real server cannot be made
 * to do on demand (an injected error) or a component this world lacks.
 */
public final class StrictCluster implements TestCluster {

  private final KubernetesMockServer server;
  private final StrictApiServer strict;
  private final KubernetesClient admin;

  private StrictCluster(KubernetesMockServer server, StrictApiServer strict) {
    this.server = server;
    this.strict = strict;
    this.admin = server.createClient();
  }

  public static StrictCluster start(Rbac rbac) {
    // Loading the CEL runtime takes seconds on a busy machine: done here, not inside the first
    // custom resource's request, whose client would time out and retry into a 409.
    CelRules.load();
    Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
    StrictApiServer strict = new StrictApiServer(rbac);
    MockDispatcher expectations = new MockDispatcher(responses);
    Dispatcher dispatcher =
        new Dispatcher() {
          @Override
          public MockResponse dispatch(RecordedRequest request) {
            Queue<ServerResponse> expected =
                responses.get(
                    new SimpleRequest(HttpMethod.valueOf(request.getMethod()), request.getPath()));
            return expected != null && !expected.isEmpty()
                ? expectations.dispatch(request)
                : strict.dispatch(request);
          }
        };
    KubernetesMockServer server =
        new KubernetesMockServer(
            new Context(Serialization.jsonMapper()),
            new MockWebServer(),
            responses,
            dispatcher,
            false);
    server.init();
    StrictCluster cluster = new StrictCluster(server, strict);
    // What a real API server makes at its start: objects are made only in namespaces that exist.
    for (String namespace : List.of("default", "kube-system", "kube-public", "kube-node-lease")) {
      cluster.createInProcess(
          new io.fabric8.kubernetes.api.model.NamespaceBuilder()
              .withNewMetadata()
              .withName(namespace)
              .endMetadata()
              .build());
    }
    return cluster;
  }

  @Override
  public KubernetesClient admin() {
    return admin;
  }

  @Override
  public Optional<StrictApiServer> strict() {
    return Optional.of(strict);
  }

  @Override
  public java.util.List<StrictApiServer.Decision> decisions() {
    return strict.decisions();
  }

  @Override
  public <T extends HasMetadata> T createUnvalidated(T object) {
    try (KubernetesClient writer = unvalidated()) {
      return writer.resource(object).create();
    }
  }

  @Override
  public void revokeFromOperator(String resource, String verb) {
    strict.grant(strict.rbac().without(OPERATOR, resource, verb));
  }

  /**
   * An admin client whose custom resources are stored without their schema and rules: an object
   * stored before its CRD tightened. Mock-only: a real server cannot be asked for this.
   */
  public KubernetesClient unvalidated() {
    return new io.fabric8.kubernetes.client.KubernetesClientBuilder()
        .withConfig(
            new io.fabric8.kubernetes.client.ConfigBuilder(admin.getConfiguration())
                .withCustomHeaders(java.util.Map.of(StrictApiServer.UNVALIDATED, "true"))
                .build())
        .build();
  }

  /**
   * Creates an object as the admin through the strict server's checks and store, in this process:
   * what a create over HTTP does, without the round trip (seeding thousands of objects for a
   * benchmark takes seconds, not minutes, on a busy machine). Mock-only.
   */
  public void createInProcess(HasMetadata object) {
    String apiVersion = object.getApiVersion();
    String namespace = object.getMetadata().getNamespace();
    String path =
        (apiVersion.contains("/") ? "/apis/" : "/api/")
            + apiVersion
            + (namespace == null ? "" : "/namespaces/" + namespace)
            + "/"
            + HasMetadata.getPlural(object.getClass());
    MockResponse response =
        strict.dispatch(
            new RecordedRequest(
                "HTTP/1.1",
                HttpMethod.POST,
                path,
                Headers.builder().add("Content-Type", "application/json").build(),
                new Buffer(Serialization.asJson(object).getBytes(StandardCharsets.UTF_8))));
    if (response.code() >= 300) {
      throw new IllegalStateException(
          "creating " + path + " failed: " + response.code() + " " + response.getBody().readUtf8());
    }
  }

  /** The mock server, for expectations. */
  public KubernetesMockServer mock() {
    return server;
  }

  @Override
  public void close() {
    admin.close();
    server.destroy();
  }
}
