package io.thinvol.driver.auth;

import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Asks the API server with a TokenReview for one audience (the driver's RBAC needs {@code create
 * tokenreviews}): a token issued for the API server, or for anyone else, is not valid here. The
 * answer must name the audience back, so an authenticator that ignores audiences is not trusted.
 * The client is built on the first token to verify: a node that is never asked to reclaim never
 * pays for it (about 20 MiB of memory).
 */
public final class KubernetesTokenVerifier implements TokenVerifier {

  private final Supplier<KubernetesClient> factory;
  private final String audience;
  private volatile KubernetesClient client;

  public KubernetesTokenVerifier(KubernetesClient client, String audience) {
    this(() -> client, audience);
  }

  public KubernetesTokenVerifier(Supplier<KubernetesClient> factory, String audience) {
    this.factory = factory;
    this.audience = audience;
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
    TokenReview review =
        new TokenReviewBuilder()
            .withNewSpec()
            .withToken(token)
            .withAudiences(audience)
            .endSpec()
            .build();
    TokenReviewStatus status;
    try {
      status = client().authentication().v1().tokenReviews().create(review).getStatus();
    } catch (KubernetesClientException e) {
      // The message never contains the token: it was only in the request body.
      throw new IllegalStateException("the TokenReview failed: " + e.getMessage(), e);
    }
    if (status == null
        || !Boolean.TRUE.equals(status.getAuthenticated())
        || status.getUser() == null
        || status.getAudiences() == null
        || !status.getAudiences().contains(audience)) {
      return Optional.empty();
    }
    return Optional.ofNullable(status.getUser().getUsername());
  }
}
