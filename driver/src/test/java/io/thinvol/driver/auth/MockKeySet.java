package io.thinvol.driver.auth;

import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.utils.ResponseProvider;
import io.thinvol.driver.auth.keys.ClusterSigningKeys;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The API server's {@code /openid/v1/jwks} as the fabric8 mock server answers it: the key set of a
 * {@link ServiceAccountTokens} cluster, and 406 to an Accept without its media type or a wildcard
 * (the real route, go-restful's, refuses those). Counts the requests.
 */
public final class MockKeySet {

  private static final String FORBIDDEN =
      "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"message\":\"forbidden:"
          + " User \\\"system:serviceaccount:thinvol-system:thinvol-node\\\" cannot get path"
          + " \\\"/openid/v1/jwks\\\"\",\"reason\":\"Forbidden\",\"code\":403}";

  private final AtomicInteger requests = new AtomicInteger();

  private MockKeySet() {}

  public static MockKeySet on(KubernetesMockServer server, ServiceAccountTokens cluster) {
    return on(server, cluster::jwks);
  }

  /**
   * Serves whatever key set {@code jwks} holds at each request; while it holds null, 403 as the API
   * server answers a ServiceAccount without {@code system:service-account-issuer-discovery}.
   */
  public static MockKeySet on(KubernetesMockServer server, Supplier<String> jwks) {
    MockKeySet keySet = new MockKeySet();
    server
        .expect()
        .get()
        .withPath(ClusterSigningKeys.JWKS_PATH)
        .andReply(
            new ResponseProvider<Object>() {
              private Headers headers = Headers.builder().build();

              @Override
              public int getStatusCode(RecordedRequest request) {
                keySet.requests.incrementAndGet();
                if (!acceptable(request.getHeader("Accept"))) {
                  return 406;
                }
                return jwks.get() == null ? 403 : 200;
              }

              @Override
              public Object getBody(RecordedRequest request) {
                if (!acceptable(request.getHeader("Accept"))) {
                  return "406: Not Acceptable\n\nAvailable representations: application/jwk-set+json";
                }
                String keys = jwks.get();
                return keys != null ? keys : FORBIDDEN;
              }

              @Override
              public Headers getHeaders() {
                return headers;
              }

              @Override
              public void setHeaders(Headers headers) {
                this.headers = headers;
              }
            })
        .always();
    return keySet;
  }

  private static boolean acceptable(String accept) {
    if (accept == null) {
      return true;
    }
    for (String type : accept.split(",")) {
      String bare = type.split(";")[0].strip();
      if (bare.equals("*/*") || bare.equals("application/jwk-set+json")) {
        return true;
      }
    }
    return false;
  }

  /** GETs of the key set so far. */
  public int requests() {
    return requests.get();
  }
}
