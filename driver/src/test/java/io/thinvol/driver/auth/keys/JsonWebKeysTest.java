package io.thinvol.driver.auth.keys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thinvol.driver.auth.ServiceAccountTokens;
import io.thinvol.driver.kube.JsonTree;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class JsonWebKeysTest {

  private static JsonTree json(String text) throws IOException {
    return JsonTree.parse(text.getBytes(StandardCharsets.UTF_8));
  }

  /** The key set of {@code cluster} with {@code from} replaced by {@code to}. */
  private static String edited(ServiceAccountTokens cluster, String from, String to) {
    String jwks = cluster.jwks();
    assertThat(jwks).contains(from);
    return jwks.replace(from, to);
  }

  @ParameterizedTest
  @EnumSource(JwsAlgorithm.class)
  @DisplayName("The key set the API server publishes gives its key, which verifies its tokens")
  void readsWhatTheApiServerPublishes(JwsAlgorithm algorithm) throws IOException {
    ServiceAccountTokens cluster = new ServiceAccountTokens(algorithm);
    Map<String, PublishedKey> keys = JsonWebKeys.parse(json(cluster.jwks()), 8);
    assertThat(keys).containsOnlyKeys(cluster.keyId());
    PublishedKey key = keys.get(cluster.keyId());
    assertThat(key.algorithm()).isEqualTo(algorithm);

    String token = cluster.issue("ns:sa", "aud", Instant.now().plusSeconds(600));
    int dot = token.lastIndexOf('.');
    byte[] input = token.substring(0, dot).getBytes(StandardCharsets.US_ASCII);
    byte[] signature = Base64.getUrlDecoder().decode(token.substring(dot + 1));
    assertThat(key.verifies(algorithm, input, signature)).isTrue();
  }

  @Test
  @DisplayName(
      "Keys not for signing, of other types or curves, contradicting their alg, or that do not"
          + " decode are left out; the others are kept")
  void leavesOutWhatItCannotUse() throws IOException {
    ServiceAccountTokens rsa = new ServiceAccountTokens();
    ServiceAccountTokens ec = new ServiceAccountTokens(JwsAlgorithm.ES256);
    String good = rsa.jwks().replace("{\"keys\":[", "").replace("]}", "");
    String[] bad = {
      edited(ec, "\"use\":\"sig\"", "\"use\":\"enc\""),
      edited(ec, "\"kty\":\"EC\"", "\"kty\":\"AKP\""),
      edited(ec, "\"crv\":\"P-256\"", "\"crv\":\"secp256k1\""),
      edited(ec, "\"alg\":\"ES256\"", "\"alg\":\"ES384\""),
      edited(rsa, "\"alg\":\"RS256\"", "\"alg\":\"PS256\""),
      edited(rsa, "\"n\":\"", "\"n\":\"!!!"),
      edited(rsa, "\"e\":\"", "\"x\":\""),
      edited(ec, "\"kid\":\"" + ec.keyId() + "\"", "\"kid\":\"\""),
    };
    for (String jwks : bad) {
      String key = jwks.replace("{\"keys\":[", "").replace("]}", "");
      assertThat(JsonWebKeys.parse(json("{\"keys\":[" + key + "," + good + "]}"), 8))
          .as(key)
          .containsOnlyKeys(rsa.keyId());
    }
  }

  @Test
  @DisplayName("A key set with more keys than the bound keeps the first ones")
  void bounded() throws IOException {
    StringBuilder keys = new StringBuilder();
    for (int i = 0; i < 5; i++) {
      ServiceAccountTokens cluster = new ServiceAccountTokens(JwsAlgorithm.ES256);
      keys.append(i == 0 ? "" : ",").append(cluster.jwks(), 9, cluster.jwks().length() - 2);
    }
    assertThat(JsonWebKeys.parse(json("{\"keys\":[" + keys + "]}"), 3)).hasSize(3);
  }

  @Test
  @DisplayName("An answer that is not a key set is an error, not an empty set")
  void notAKeySet() {
    for (String answer : new String[] {"{\"kind\":\"Pod\"}", "[]", "{\"keys\":{}}"}) {
      assertThatThrownBy(() -> JsonWebKeys.parse(json(answer), 8))
          .as(answer)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("not a JSON Web Key Set");
    }
  }
}
