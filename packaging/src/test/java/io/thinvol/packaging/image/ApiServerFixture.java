package io.thinvol.packaging.image;

import io.fabric8.kubernetes.api.model.APIGroupBuilder;
import io.fabric8.kubernetes.api.model.APIGroupListBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.authorization.v1.ResourceRule;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectRulesReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectRulesReviewStatus;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
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
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * An API server for the operator's container on a host port: fabric8's mock server in CRUD mode,
 * over TLS on 127.0.0.1 ("localhost" in its certificate), with what the operator needs beyond plain
 * CRUD: API group discovery, the token's rules (SelfSubjectRulesReview, which leader election
 * checks) and server-side apply (an apply creates the object or merges into it, as the API server
 * does for a sole field manager).
 */
final class ApiServerFixture implements AutoCloseable {

  private static final String APPLY = "application/apply-patch";
  private static final String RULES_REVIEW =
      "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews";

  // Held: java.util.logging keeps only weak references, and each request is logged at INFO.
  private static final Logger REQUEST_LOG = Logger.getLogger(MockWebServer.class.getName());

  private final MockWebServer web = new MockWebServer();
  private final KubernetesMockServer server;

  /**
   * @param rules what the ServiceAccount's token may do, as its RBAC roles grant it
   */
  ApiServerFixture(List<PolicyRule> rules) {
    REQUEST_LOG.setLevel(Level.WARNING);
    server =
        new KubernetesMockServer(new Context(), web, new HashMap<>(), new Dispatcher(rules), true);
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

    private final List<PolicyRule> rules;

    Dispatcher(List<PolicyRule> rules) {
      this.rules = rules;
    }

    @Override
    public MockResponse dispatch(RecordedRequest request) {
      String path = request.getPath();
      if (request.method() == HttpMethod.GET && path.equals("/apis")) {
        return new MockResponse().setResponseCode(200).setBody(Serialization.asJson(groups()));
      }
      if (request.method() == HttpMethod.POST && path.startsWith(RULES_REVIEW)) {
        return new MockResponse()
            .setResponseCode(201)
            .setBody(Serialization.asJson(review(request)));
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

    /** The rules of the token, as the API server answers a SelfSubjectRulesReview. */
    private SelfSubjectRulesReview review(RecordedRequest request) {
      SelfSubjectRulesReview review =
          Serialization.unmarshal(request.getBody().readUtf8(), SelfSubjectRulesReview.class);
      List<ResourceRule> granted =
          rules.stream()
              .map(
                  r ->
                      new ResourceRule(
                          r.getApiGroups(), r.getResourceNames(), r.getResources(), r.getVerbs()))
              .toList();
      review.setStatus(new SubjectRulesReviewStatus(null, false, List.of(), granted));
      return review;
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
