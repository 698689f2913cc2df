package io.thinvol.driver.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewStatus;
import io.fabric8.kubernetes.api.model.authentication.UserInfo;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.net.HttpURLConnection;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@EnableKubernetesMockClient(https = false)
class KubernetesTokenVerifierTest {

  private static final String AUDIENCE = "addons.thinvol.io";

  KubernetesMockServer server;

  /** An authenticator that says yes and names {@code audiences} (null: it ignores audiences). */
  private void answer(List<String> audiences) {
    server
        .expect()
        .post()
        .withPath("/apis/authentication.k8s.io/v1/tokenreviews")
        .andReply(
            HttpURLConnection.HTTP_CREATED,
            request -> {
              TokenReview review =
                  Serialization.unmarshal(request.getBody().readUtf8(), TokenReview.class);
              assertThat(review.getSpec().getAudiences()).containsExactly(AUDIENCE);
              TokenReviewStatus status = new TokenReviewStatus();
              status.setAuthenticated(true);
              UserInfo user = new UserInfo();
              user.setUsername("system:serviceaccount:thinvol-system:thinvol-operator");
              status.setUser(user);
              status.setAudiences(audiences);
              review.setStatus(status);
              return Serialization.asJson(review);
            })
        .once();
  }

  @Test
  @DisplayName("An answer that does not name the audience back is not trusted")
  void audienceMustComeBack() {
    KubernetesTokenVerifier verifier =
        new KubernetesTokenVerifier(() -> MockTokenReviews.api(server), AUDIENCE);
    answer(null);
    assertThat(verifier.username("t1")).isEmpty();
    answer(List.of("https://kubernetes.default.svc"));
    assertThat(verifier.username("t2")).isEmpty();
    answer(List.of(AUDIENCE));
    assertThat(verifier.username("t3"))
        .contains("system:serviceaccount:thinvol-system:thinvol-operator");
  }

  @Test
  @DisplayName("A TokenReview the API server refuses is an error naming the answer, not a refusal")
  void refusedReviewIsAnError() {
    server
        .expect()
        .post()
        .withPath("/apis/authentication.k8s.io/v1/tokenreviews")
        .andReturn(
            HttpURLConnection.HTTP_FORBIDDEN,
            "{\"kind\":\"Status\",\"message\":\"tokenreviews.authentication.k8s.io is"
                + " forbidden: User cannot create resource\"}")
        .once();
    KubernetesTokenVerifier verifier =
        new KubernetesTokenVerifier(() -> MockTokenReviews.api(server), AUDIENCE);
    assertThatThrownBy(() -> verifier.username("secret-token-value"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("403")
        .hasMessageContaining("forbidden")
        .hasMessageNotContaining("secret-token-value");
  }
}
