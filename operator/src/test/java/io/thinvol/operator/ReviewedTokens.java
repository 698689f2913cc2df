package io.thinvol.operator;

import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewStatus;
import io.fabric8.kubernetes.api.model.authentication.UserInfo;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.thinvol.addons.call.ProjectedToken;
import io.thinvol.api.BackendNames;
import java.net.HttpURLConnection;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The projected tokens of the tests' driver processes and operator, for the addons audience, and
 * the mock API server's TokenReviews of them: the operator's ServiceAccount's token, and the node
 * ServiceAccount's token a driver calls its peers with. Any other token is invalid.
 */
final class ReviewedTokens {

  private static final String TOKEN_REVIEWS = "/apis/authentication.k8s.io/v1/tokenreviews";

  /** The token issued to each user. */
  private static final Map<String, String> USERS = new ConcurrentHashMap<>();

  /** Shaped like the operator's projected token (the driver screens it before any review). */
  static final String OPERATOR_TOKEN = issue(account("thinvol-operator"));

  private ReviewedTokens() {}

  /** The token the kubelet projects into {@code backend}'s driver pods for their peer calls. */
  static String nodeToken(String backend) {
    return issue(account(BackendNames.nodeDaemonSet(backend)));
  }

  /**
   * Answers TokenReviews of the tokens issued here as their ServiceAccounts.
   *
   * @return how many reviews of the operator's token were answered
   */
  static AtomicInteger answer(KubernetesMockServer server) {
    AtomicInteger operatorReviews = new AtomicInteger();
    var reviews = server.expect().post().withPath(TOKEN_REVIEWS);
    reviews
        .andReply(HttpURLConnection.HTTP_CREATED, asked -> review(asked, operatorReviews))
        .always();
    return operatorReviews;
  }

  private static String account(String name) {
    return "system:serviceaccount:" + MockClusterTest.NAMESPACE + ":" + name;
  }

  private static String issue(String user) {
    return USERS.computeIfAbsent(user, ReviewedTokens::projected);
  }

  private static String review(RecordedRequest asked, AtomicInteger operatorReviews) {
    TokenReview request = Serialization.unmarshal(asked.getBody().readUtf8(), TokenReview.class);
    TokenReviewStatus status = new TokenReviewStatus();
    String token = request.getSpec().getToken();
    String user =
        USERS.entrySet().stream()
            .filter(e -> e.getValue().equals(token))
            .map(Map.Entry::getKey)
            .findFirst()
            .orElse(null);
    List<String> audiences = request.getSpec().getAudiences();
    if (user != null && audiences != null && audiences.contains(ProjectedToken.DEFAULT_AUDIENCE)) {
      if (OPERATOR_TOKEN.equals(token)) {
        operatorReviews.incrementAndGet();
      }
      status.setAuthenticated(true);
      status.setAudiences(List.of(ProjectedToken.DEFAULT_AUDIENCE));
      UserInfo info = new UserInfo();
      info.setUsername(user);
      status.setUser(info);
    } else {
      status.setAuthenticated(false);
      status.setError("invalid bearer token");
    }
    request.setStatus(status);
    return Serialization.asJson(request);
  }

  private static String projected(String subject) {
    Base64.Encoder base64url = Base64.getUrlEncoder().withoutPadding();
    String header = "{\"alg\":\"RS256\",\"kid\":\"e2e\"}";
    String payload =
        "{\"aud\":[\""
            + ProjectedToken.DEFAULT_AUDIENCE
            + "\"],\"exp\":"
            + Instant.now().plus(Duration.ofHours(6)).getEpochSecond()
            + ",\"sub\":\""
            + subject
            + "\"}";
    return base64url.encodeToString(header.getBytes(StandardCharsets.UTF_8))
        + "."
        + base64url.encodeToString(payload.getBytes(StandardCharsets.UTF_8))
        + "."
        + base64url.encodeToString("e2e-signature".getBytes(StandardCharsets.UTF_8));
  }
}
