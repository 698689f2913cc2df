package io.thinvol.driver.auth;

import io.thinvol.driver.auth.keys.ClusterSigningKeys;
import io.thinvol.driver.auth.keys.SigningKeys;
import io.thinvol.driver.kube.ApiServer;
import io.thinvol.driver.kube.JsonTree;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Asks the API server with a TokenReview for one audience (the driver's RBAC needs {@code create
 * tokenreviews}): a token issued for the API server, or for anyone else, is not valid here. The
 * answer must name the audience back, so an authenticator that ignores audiences is not trusted.
 * The client is built on the first token to verify: a node that is never asked to reclaim never
 * pays for it. The cluster's signing keys are read through the same client.
 */
public final class KubernetesTokenVerifier implements TokenVerifier {

  private static final String PATH = "/apis/authentication.k8s.io/v1/tokenreviews";

  private final Supplier<ApiServer> factory;
  private final String audience;
  private final ClusterSigningKeys keys = new ClusterSigningKeys(this::api, Clock.systemUTC());
  private volatile ApiServer api;

  public KubernetesTokenVerifier(Supplier<ApiServer> factory, String audience) {
    this.factory = factory;
    this.audience = audience;
  }

  @Override
  public SigningKeys signingKeys() {
    return keys;
  }

  private ApiServer api() {
    ApiServer current = api;
    if (current == null) {
      synchronized (this) {
        if (api == null) {
          api = factory.get();
        }
        current = api;
      }
    }
    return current;
  }

  @Override
  public Optional<String> username(String token) {
    Map<String, Object> review =
        Map.of(
            "apiVersion", "authentication.k8s.io/v1",
            "kind", "TokenReview",
            "spec", Map.of("token", token, "audiences", List.of(audience)));
    JsonTree status;
    try {
      status = api().post(PATH, review).path("status");
    } catch (IllegalStateException e) {
      // The message never contains the token: it was only in the request body.
      throw new IllegalStateException("the TokenReview failed: " + e.getMessage(), e);
    }
    boolean namesAudience = false;
    for (JsonTree named : status.path("audiences")) {
      namesAudience |= audience.equals(named.asText());
    }
    String username = status.path("user").path("username").asText("");
    if (!status.path("authenticated").asBoolean(false) || !namesAudience || username.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(username);
  }
}
