package io.thinvol.driver.auth;

import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Optional;

/** Asks the API server with a TokenReview (the driver's RBAC needs {@code create tokenreviews}). */
public final class KubernetesTokenVerifier implements TokenVerifier {

  private final KubernetesClient client;

  public KubernetesTokenVerifier(KubernetesClient client) {
    this.client = client;
  }

  @Override
  public Optional<String> username(String token) {
    TokenReview review = new TokenReviewBuilder().withNewSpec().withToken(token).endSpec().build();
    TokenReviewStatus status;
    try {
      status = client.authentication().v1().tokenReviews().create(review).getStatus();
    } catch (KubernetesClientException e) {
      // The message never contains the token: it was only in the request body.
      throw new IllegalStateException("the TokenReview failed: " + e.getMessage(), e);
    }
    if (status == null
        || !Boolean.TRUE.equals(status.getAuthenticated())
        || status.getUser() == null) {
      return Optional.empty();
    }
    return Optional.ofNullable(status.getUser().getUsername());
  }
}
