package io.thinvol.packaging.image;

import io.fabric8.kubernetes.api.model.APIGroupBuilder;
import io.fabric8.kubernetes.api.model.APIGroupListBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;

/**
 * An API server for the operator's container on a host port: fabric8's mock server in CRUD mode,
 * over TLS on 127.0.0.1 ("localhost" in its certificate), with the two things the operator needs
 * beyond plain CRUD: API group discovery and server-side apply (an apply creates the object or
 * merges into it, as the API server does for a sole field manager).
 */
final class ApiServerFixture implements AutoCloseable {

  private static final String APPLY = "application/apply-patch";

  private final MockWebServer web = new MockWebServer();
  private final KubernetesMockServer server;

  ApiServerFixture() {
    server = new KubernetesMockServer(new Context(), web, new HashMap<>(), new Dispatcher(), true);
    server.init(InetAddress.getLoopbackAddress(), 0);
  }

  int port() {
    return server.getPort();
  }

  /** The server's certificate, as the ServiceAccount's ca.crt. */
  Path certificate() {
    return Path.of(web.getSelfSignedCertificate().certificatePath());
  }

  /** A client as the operator's ServiceAccount would have, for seeding and reading state. */
  KubernetesClient client(String namespace) throws IOException {
    Config config =
        new ConfigBuilder()
            .withMasterUrl("https://localhost:" + port())
            .withCaCertData(
                java.util.Base64.getEncoder().encodeToString(Files.readAllBytes(certificate())))
            .withNamespace(namespace)
            .build();
    return new KubernetesClientBuilder().withConfig(config).build();
  }

  @Override
  public void close() {
    server.destroy();
  }

  private static final class Dispatcher extends KubernetesCrudDispatcher {

    @Override
    public MockResponse dispatch(RecordedRequest request) {
      String path = request.getPath();
      if (request.method() == HttpMethod.GET && path.equals("/apis")) {
        return new MockResponse().setResponseCode(200).setBody(Serialization.asJson(groups()));
      }
      String contentType = request.getHeader("Content-Type");
      if (request.method() != HttpMethod.PATCH
          || contentType == null
          || !contentType.startsWith(APPLY)) {
        return super.dispatch(request);
      }
      String body =
          Serialization.asJson(
              Serialization.unmarshal(
                  request.getBody().readUtf8(), GenericKubernetesResource.class));
      String objectPath = path.contains("?") ? path.substring(0, path.indexOf('?')) : path;
      MockResponse merged =
          handlePatch(request(HttpMethod.PATCH, objectPath, "application/merge-patch+json", body));
      if (merged.code() != 404 || objectPath.endsWith("/status")) {
        return merged;
      }
      String collection = objectPath.substring(0, objectPath.lastIndexOf('/'));
      return handleCreate(request(HttpMethod.POST, collection, "application/json", body));
    }

    private static RecordedRequest request(
        HttpMethod method, String path, String contentType, String body) {
      return new RecordedRequest(
          "HTTP/1.1",
          method,
          path,
          Headers.builder().add("Content-Type", contentType).build(),
          new Buffer().writeUtf8(body));
    }

    private static Object groups() {
      APIGroupListBuilder list = new APIGroupListBuilder();
      for (String group :
          new String[] {
            "apps",
            "rbac.authorization.k8s.io",
            "storage.k8s.io",
            "coordination.k8s.io",
            "thinvol.io"
          }) {
        list.addToGroups(new APIGroupBuilder().withName(group).build());
      }
      return list.build();
    }
  }
}
