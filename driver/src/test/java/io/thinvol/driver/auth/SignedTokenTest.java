package io.thinvol.driver.auth;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.thinvol.driver.MutableClock;
import io.thinvol.driver.auth.TokenAuthenticator.Outcome;
import io.thinvol.driver.auth.keys.ClusterSigningKeys;
import io.thinvol.driver.auth.keys.JwsAlgorithm;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Tokens checked against the cluster's published keys (served by the fabric8 mock API server)
 * before any TokenReview, for the algorithms the API server signs with.
 */
@EnableKubernetesMockClient(https = false)
class SignedTokenTest {

  private static final String AUDIENCE = "addons.thinvol.io";
  private static final String OPERATOR_ACCOUNT = "thinvol-system:thinvol-operator";
  private static final String OPERATOR = "system:serviceaccount:" + OPERATOR_ACCOUNT;
  private static final Predicate<String> OPERATOR_ONLY = OPERATOR::equals;

  KubernetesMockServer server;

  private final MutableClock clock = new MutableClock(Instant.now());
  private final Reviews reviews = new Reviews();
  private final Instant inTenMinutes = Instant.now().plus(Duration.ofMinutes(10));

  /** The TokenReview: the tokens the cluster issued are valid; counts the reviews. */
  private static final class Reviews implements TokenVerifier {
    final Set<String> issued = ConcurrentHashMap.newKeySet();
    final AtomicInteger count = new AtomicInteger();

    @Override
    public Optional<String> username(String token) {
      count.incrementAndGet();
      return issued.contains(token) ? Optional.of(OPERATOR) : Optional.empty();
    }
  }

  private TokenAuthenticator authenticator(ServiceAccountTokens cluster) {
    return new TokenAuthenticator(
        reviews,
        new ClusterSigningKeys(() -> MockTokenReviews.api(server), clock),
        AUDIENCE,
        clock,
        TokenAuthenticator.MAX_CONCURRENT_REVIEWS);
  }

  private String issued(ServiceAccountTokens cluster) {
    String token = cluster.issue(OPERATOR_ACCOUNT, AUDIENCE, inTenMinutes);
    reviews.issued.add(token);
    return token;
  }

  private static String reason(Outcome outcome) {
    assertThat(outcome).isInstanceOf(Outcome.Refused.class);
    return ((Outcome.Refused) outcome).reason();
  }

  @ParameterizedTest
  @EnumSource(JwsAlgorithm.class)
  @DisplayName("A token the cluster signed is reviewed once; a random signature is refused unasked")
  void signedIsReviewedForgedIsNot(JwsAlgorithm algorithm) {
    ServiceAccountTokens cluster = new ServiceAccountTokens(algorithm);
    MockKeySet keySet = MockKeySet.on(server, cluster);
    TokenAuthenticator authenticator = authenticator(cluster);
    String token = issued(cluster);
    assertThat(authenticator.authenticate(token, OPERATOR_ONLY))
        .isEqualTo(new Outcome.Authenticated(OPERATOR));
    assertThat(authenticator.authenticate(token, OPERATOR_ONLY))
        .isEqualTo(new Outcome.Authenticated(OPERATOR));
    assertThat(reviews.count).as("one review, then the verdict is remembered").hasValue(1);

    for (int i = 0; i < 100; i++) {
      assertThat(
              reason(
                  authenticator.authenticate(
                      cluster.forged(OPERATOR_ACCOUNT, AUDIENCE), OPERATOR_ONLY)))
          .contains("signature is not the cluster's");
    }
    // Signed for real, by another key of the same kind, under the cluster's key id.
    String otherKeys =
        new ServiceAccountTokens(algorithm)
            .sign(cluster.header(), cluster.claims(OPERATOR_ACCOUNT, AUDIENCE, inTenMinutes));
    reviews.issued.add(otherKeys);
    assertThat(reason(authenticator.authenticate(otherKeys, OPERATOR_ONLY)))
        .contains("signature is not the cluster's");
    assertThat(reviews.count).as("no review for a forged signature").hasValue(1);
    assertThat(keySet.requests()).isEqualTo(1);
  }

  @ParameterizedTest
  @EnumSource(
      value = JwsAlgorithm.class,
      names = {"RS256", "ES256"})
  @DisplayName(
      "A made-up key id reads the keys once and is refused; more within the minute read nothing")
  void unknownKeyIdReadsOnceAMinute(JwsAlgorithm algorithm) {
    ServiceAccountTokens cluster = new ServiceAccountTokens(algorithm);
    MockKeySet keySet = MockKeySet.on(server, cluster);
    TokenAuthenticator authenticator = authenticator(cluster);
    assertThat(authenticator.authenticate(issued(cluster), OPERATOR_ONLY))
        .isEqualTo(new Outcome.Authenticated(OPERATOR));
    clock.advance(Duration.ofMinutes(1));
    for (int i = 0; i < 500; i++) {
      Map<String, Object> header = cluster.header();
      header.put("kid", "made-up-" + i);
      String token = cluster.sign(header, cluster.claims(OPERATOR_ACCOUNT, AUDIENCE, inTenMinutes));
      assertThat(reason(authenticator.authenticate(token, OPERATOR_ONLY)))
          .contains("signing key (kid) the cluster does not publish");
    }
    assertThat(keySet.requests()).as("the first read, and one for the unknown ids").isEqualTo(2);
    assertThat(reviews.count).hasValue(1);
  }

  @ParameterizedTest
  @EnumSource(
      value = JwsAlgorithm.class,
      names = {"RS256", "ES256"})
  @DisplayName(
      "Expired, not for our audience, alg none, HS256 keyed with the public key, or an algorithm"
          + " not the key's: refused without a review")
  void refusedUnasked(JwsAlgorithm algorithm) throws GeneralSecurityException {
    ServiceAccountTokens cluster = new ServiceAccountTokens(algorithm);
    MockKeySet.on(server, cluster);
    TokenAuthenticator authenticator = authenticator(cluster);
    String expired =
        cluster.issue(OPERATOR_ACCOUNT, AUDIENCE, Instant.now().minus(Duration.ofMinutes(5)));
    reviews.issued.add(expired);
    assertThat(reason(authenticator.authenticate(expired, OPERATOR_ONLY))).contains("expired");
    String apiServers =
        cluster.issue(OPERATOR_ACCOUNT, ServiceAccountTokens.API_SERVER_AUDIENCE, inTenMinutes);
    reviews.issued.add(apiServers);
    assertThat(reason(authenticator.authenticate(apiServers, OPERATOR_ONLY))).contains("audience");

    Map<String, Object> claims = cluster.claims(OPERATOR_ACCOUNT, AUDIENCE, inTenMinutes);
    String none =
        ServiceAccountTokens.encode(Map.of("alg", "none", "kid", cluster.keyId()))
            + "."
            + ServiceAccountTokens.encode(claims)
            + ".";
    assertThat(reason(authenticator.authenticate(none, OPERATOR_ONLY))).contains("JWT");
    assertThat(reason(authenticator.authenticate(none + "c2ln", OPERATOR_ONLY))).contains("signed");

    // Algorithm confusion: an HMAC keyed with the published key's bytes, which a verifier that
    // took the header's alg and used the key as the secret would accept.
    String hs256Input =
        ServiceAccountTokens.encode(Map.of("alg", "HS256", "kid", cluster.keyId()))
            + "."
            + ServiceAccountTokens.encode(claims);
    Mac hmac = Mac.getInstance("HmacSHA256");
    hmac.init(new SecretKeySpec(cluster.publicKey().getEncoded(), "HmacSHA256"));
    String hs256 =
        hs256Input
            + "."
            + Base64.getUrlEncoder()
                .withoutPadding()
                .encodeToString(hmac.doFinal(hs256Input.getBytes(StandardCharsets.US_ASCII)));
    reviews.issued.add(hs256);
    assertThat(reason(authenticator.authenticate(hs256, OPERATOR_ONLY))).contains("signed");

    // Signed by a key of the other kind, under the name of the cluster's key.
    ServiceAccountTokens otherKind =
        new ServiceAccountTokens(
            algorithm == JwsAlgorithm.RS256 ? JwsAlgorithm.ES256 : JwsAlgorithm.RS256);
    Map<String, Object> header = otherKind.header();
    header.put("kid", cluster.keyId());
    String mixed = otherKind.sign(header, claims);
    reviews.issued.add(mixed);
    assertThat(reason(authenticator.authenticate(mixed, OPERATOR_ONLY))).contains("signature");
    assertThat(reviews.count).hasValue(0);
  }

  @ParameterizedTest
  @EnumSource(
      value = JwsAlgorithm.class,
      names = {"RS256", "ES256"})
  @DisplayName(
      "A signed token of an account that may not call is turned away unasked; one of another"
          + " issuer is left to the review")
  void subjectAndIssuer(JwsAlgorithm algorithm) {
    ServiceAccountTokens cluster = new ServiceAccountTokens(algorithm);
    MockKeySet.on(server, cluster);
    TokenAuthenticator authenticator = authenticator(cluster);
    String someone = cluster.issue("default:someone", AUDIENCE, inTenMinutes);
    assertThat(authenticator.authenticate(someone, OPERATOR_ONLY))
        .isEqualTo(new Outcome.NotAdmitted("system:serviceaccount:default:someone"));
    assertThat(reviews.count).hasValue(0);

    // The API server accepts every issuer it is given (--service-account-issuer, repeated, while
    // the issuer changes); its discovery names only the first, so the review decides.
    Map<String, Object> claims = cluster.claims(OPERATOR_ACCOUNT, AUDIENCE, inTenMinutes);
    claims.put("iss", "https://old-issuer.example");
    assertThat(
            reason(
                authenticator.authenticate(cluster.sign(cluster.header(), claims), OPERATOR_ONLY)))
        .contains("TokenReview refused");
    assertThat(reviews.count).hasValue(1);
  }

  @Test
  @DisplayName("Without published keys (404) every token that passes the screen is reviewed")
  void withoutKeysEveryTokenIsReviewed() {
    ServiceAccountTokens cluster = new ServiceAccountTokens();
    TokenAuthenticator authenticator = authenticator(cluster);
    assertThat(authenticator.authenticate(issued(cluster), OPERATOR_ONLY))
        .isEqualTo(new Outcome.Authenticated(OPERATOR));
    assertThat(
            reason(
                authenticator.authenticate(
                    cluster.forged(OPERATOR_ACCOUNT, AUDIENCE), OPERATOR_ONLY)))
        .contains("TokenReview refused");
    assertThat(reviews.count).hasValue(2);
  }
}
