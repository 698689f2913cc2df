package io.thinvol.driver.auth;

import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewStatus;
import io.fabric8.kubernetes.api.model.authentication.UserInfo;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.driver.kube.ApiServer;
import java.net.HttpURLConnection;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The API server's TokenReview as the fabric8 mock server answers it: a token it issued is
 * authenticated when it was issued for one of the requested audiences (the API server's own when
 * the request names none), and the answer names the audiences both share.
 */
public final class MockTokenReviews {

  private final Map<String, String> users = new ConcurrentHashMap<>();
  private final List<TokenReview> requests = new CopyOnWriteArrayList<>();

  private MockTokenReviews() {}

  public static MockTokenReviews on(KubernetesMockServer server) {
    MockTokenReviews reviews = new MockTokenReviews();
    server
        .expect()
        .post()
        .withPath("/apis/authentication.k8s.io/v1/tokenreviews")
        .andReply(
            HttpURLConnection.HTTP_CREATED, request -> reviews.review(request.getBody().readUtf8()))
        .always();
    return reviews;
  }

  /** The driver's client of {@code server} (plain HTTP: the tests' mock servers have no TLS). */
  static ApiServer api(KubernetesMockServer server) {
    return ApiServer.at(URI.create(server.url("/")), "the-driver's-own-token");
  }

  /** Makes {@code token} one the cluster issued to {@code username}. */
  public String issued(String token, String username) {
    users.put(token, username);
    return token;
  }

  /** Every TokenReview received so far. */
  public List<TokenReview> requests() {
    return requests;
  }

  private String review(String body) {
    TokenReview request = Serialization.unmarshal(body, TokenReview.class);
    requests.add(request);
    String token = request.getSpec().getToken();
    List<String> asked =
        request.getSpec().getAudiences() == null || request.getSpec().getAudiences().isEmpty()
            ? List.of(ServiceAccountTokens.API_SERVER_AUDIENCE)
            : request.getSpec().getAudiences();
    Set<String> tokenAudiences = Set.copyOf(ServiceAccountTokens.audiences(token));
    List<String> shared = asked.stream().filter(tokenAudiences::contains).toList();
    String user = users.get(token);
    TokenReviewStatus status = new TokenReviewStatus();
    status.setAuthenticated(user != null && !shared.isEmpty());
    if (Boolean.TRUE.equals(status.getAuthenticated())) {
      UserInfo info = new UserInfo();
      info.setUsername(user);
      status.setUser(info);
      status.setAudiences(shared);
    } else {
      status.setError("invalid bearer token");
    }
    request.setStatus(status);
    return Serialization.asJson(request);
  }
}
