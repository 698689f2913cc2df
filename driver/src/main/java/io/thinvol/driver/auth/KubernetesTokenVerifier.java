package io.thinvol.driver.auth;

import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Asks the API server with a TokenReview (the driver's RBAC needs {@code create tokenreviews}). The
 * client is built on the first token to verify: a node that is never asked to reclaim never pays
 * for it (about 20 MiB of memory).
 */
public final class KubernetesTokenVerifier implements TokenVerifier {

  private final Supplier<KubernetesClient> factory;
  private volatile KubernetesClient client;

  public KubernetesTokenVerifier(KubernetesClient client) {
    this(() -> client);
  }

  public KubernetesTokenVerifier(Supplier<KubernetesClient> factory) {
    this.factory = factory;
  }

  private KubernetesClient client() {
    KubernetesClient current = client;
    if (current == null) {
      synchronized (this) {
        if (client == null) {
          client = factory.get();
        }
        current = client;
      }
    }
    return current;
  }

  @Override
  public Optional<String> username(String token) {
    TokenReview review = new TokenReviewBuilder().withNewSpec().withToken(token).endSpec().build();
    TokenReviewStatus status;
    try {
      status = client().authentication().v1().tokenReviews().create(review).getStatus();
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
