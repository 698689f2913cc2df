package io.thinvol.driver.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class TokenScreenTest {

  private static final String AUDIENCE = "addons.thinvol.io";
  private static final Instant NOW = Instant.parse("2026-11-23T20:00:00Z");
  private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();

  private static String jwt(String header, String payload) {
    return B64.encodeToString(header.getBytes(StandardCharsets.UTF_8))
        + "."
        + B64.encodeToString(payload.getBytes(StandardCharsets.UTF_8))
        + "."
        + B64.encodeToString(new byte[64]);
  }

  private static String refusal(String token) {
    return TokenScreen.screen(token, AUDIENCE, NOW).refusal();
  }

  private static final String HEADER = "{\"alg\":\"RS256\",\"kid\":\"k1\"}";
  private static final long EXP = NOW.plus(Duration.ofMinutes(10)).getEpochSecond();
  private static final String SUB = ",\"sub\":\"system:serviceaccount:ns:sa\"";

  @Test
  @DisplayName("A projected token for the audience passes, with its expiry")
  void passes() {
    for (String aud : new String[] {"[\"other\",\"" + AUDIENCE + "\"]", "\"" + AUDIENCE + "\""}) {
      TokenScreen.Result result =
          TokenScreen.screen(
              jwt(HEADER, "{\"aud\":" + aud + ",\"exp\":" + EXP + SUB + "}"), AUDIENCE, NOW);
      assertThat(result.passed()).as(aud).isTrue();
      assertThat(result.token().expiresAt()).isEqualTo(Instant.ofEpochSecond(EXP));
      assertThat(result.token().subject()).isEqualTo("system:serviceaccount:ns:sa");
      assertThat(result.token().keyId()).isEqualTo("k1");
    }
    assertThat(
            TokenScreen.screen(
                    jwt(
                        "{\"alg\":\"ES256\",\"kid\":\"k\"}",
                        "{\"aud\":\"" + AUDIENCE + "\",\"exp\":" + EXP + SUB + "}"),
                    AUDIENCE,
                    NOW)
                .passed())
        .isTrue();
  }

  @Test
  @DisplayName("Anything else is refused, with a reason and without echoing the token")
  void refused() {
    String good = "{\"aud\":[\"" + AUDIENCE + "\"],\"exp\":" + EXP + SUB + "}";
    assertThat(refusal("bogus")).contains("not a JWT");
    assertThat(refusal("a.b")).contains("not a JWT");
    assertThat(refusal("a..c")).contains("not a JWT");
    assertThat(refusal("a.b.c.d")).contains("not a JWT");
    assertThat(refusal("!!!.???.***")).contains("not a JWT");
    assertThat(refusal(jwt("[1]", good))).contains("not a JWT");
    assertThat(refusal(jwt("not json", good))).contains("not a JWT");
    assertThat(refusal(jwt("{\"alg\":\"none\",\"kid\":\"k1\"}", good))).contains("signed");
    assertThat(refusal(jwt("{\"alg\":\"HS256\",\"kid\":\"k1\"}", good))).contains("signed");
    assertThat(refusal(jwt("{\"alg\":\"RS256\"}", good))).contains("kid");
    assertThat(refusal(jwt(HEADER, "{\"aud\":[\"https://kubernetes.default.svc\"],\"exp\":1}")))
        .contains("audience '" + AUDIENCE + "'");
    assertThat(refusal(jwt(HEADER, "{\"exp\":" + EXP + "}"))).contains("audience");
    assertThat(refusal(jwt(HEADER, "{\"aud\":\"" + AUDIENCE + "\"}"))).contains("expiry");
    long expired = NOW.minus(Duration.ofMinutes(2)).getEpochSecond();
    assertThat(refusal(jwt(HEADER, "{\"aud\":\"" + AUDIENCE + "\",\"exp\":" + expired + "}")))
        .contains("expired");
    assertThat(refusal(jwt(HEADER, good) + "x".repeat(TokenScreen.MAX_LENGTH))).contains("longer");
  }

  @Test
  @DisplayName("Times an Instant cannot hold are refused, not thrown")
  void timesOutOfRange() {
    String claims = "{\"aud\":\"" + AUDIENCE + "\"" + SUB;
    for (String exp : new String[] {"9223372036854775807", "31556889864403199", "-1", "1e300"}) {
      assertThat(refusal(jwt(HEADER, claims + ",\"exp\":" + exp + "}"))).as(exp).contains("exp");
    }
    for (String nbf : new String[] {"-9223372036854775808", "9223372036854775807"}) {
      assertThat(refusal(jwt(HEADER, claims + ",\"exp\":" + EXP + ",\"nbf\":" + nbf + "}")))
          .as(nbf)
          .contains("nbf");
    }
  }

  @Test
  @DisplayName(
      "A token not valid yet, not a ServiceAccount's, or with critical header extensions is"
          + " refused")
  void claimsAServiceAccountTokenHas() {
    String claims = "{\"aud\":\"" + AUDIENCE + "\",\"exp\":" + EXP;
    long later = NOW.plus(Duration.ofMinutes(2)).getEpochSecond();
    long soon = NOW.plus(Duration.ofSeconds(30)).getEpochSecond();
    assertThat(refusal(jwt(HEADER, claims + SUB + ",\"nbf\":" + later + "}"))).contains("nbf");
    assertThat(refusal(jwt(HEADER, claims + SUB + ",\"nbf\":\"now\"}"))).contains("nbf");
    assertThat(refusal(jwt(HEADER, claims + SUB + ",\"nbf\":" + soon + "}")))
        .as("within the clock skew")
        .isNull();
    for (String sub :
        new String[] {
          "",
          ",\"sub\":\"admin\"",
          ",\"sub\":\"system:serviceaccount:ns\"",
          ",\"sub\":\"system:serviceaccount::sa\"",
          ",\"sub\":\"system:serviceaccount:a:b:c\"",
          ",\"sub\":7"
        }) {
      assertThat(refusal(jwt(HEADER, claims + sub + "}"))).as(sub).contains("sub");
    }
    String kubernetes =
        ",\"kubernetes.io\":{\"namespace\":\"%s\",\"serviceaccount\":{\"name\":\"%s\"}}";
    assertThat(refusal(jwt(HEADER, claims + SUB + kubernetes.formatted("ns", "sa") + "}")))
        .isNull();
    assertThat(refusal(jwt(HEADER, claims + SUB + kubernetes.formatted("other", "sa") + "}")))
        .contains("sub");
    assertThat(refusal(jwt(HEADER, claims + SUB + kubernetes.formatted("ns", "other") + "}")))
        .contains("sub");
    assertThat(
            refusal(
                jwt("{\"alg\":\"RS256\",\"kid\":\"k1\",\"crit\":[\"exp\"]}", claims + SUB + "}")))
        .contains("crit");
  }
}
