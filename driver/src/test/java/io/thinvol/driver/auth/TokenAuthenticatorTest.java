package io.thinvol.driver.auth;

import static org.assertj.core.api.Assertions.assertThat;

import io.thinvol.driver.MutableClock;
import io.thinvol.driver.auth.keys.SigningKeys;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class TokenAuthenticatorTest {

  private static final String AUDIENCE = "addons.thinvol.io";
  private static final String OPERATOR = "system:serviceaccount:thinvol-system:thinvol-operator";
  private static final Predicate<String> ANYONE = username -> true;

  private final ServiceAccountTokens tokens = new ServiceAccountTokens();
  private final Instant now = Instant.now();
  private final MutableClock clock = new MutableClock(now);

  /** Knows one token; counts the reviews. */
  private static final class CountingVerifier implements TokenVerifier {
    final AtomicInteger reviews = new AtomicInteger();
    volatile String valid;

    @Override
    public Optional<String> username(String token) {
      reviews.incrementAndGet();
      return token.equals(valid) ? Optional.of(OPERATOR) : Optional.empty();
    }
  }

  private String token(Duration life) {
    return tokens.issue("thinvol-system:thinvol-operator", AUDIENCE, now.plus(life));
  }

  @Test
  @DisplayName("A spray of refused tokens evicts no accepted verdict (they are kept apart)")
  void refusedVerdictsDoNotEvictAccepted() {
    CountingVerifier verifier = new CountingVerifier();
    TokenAuthenticator authenticator = new TokenAuthenticator(verifier, AUDIENCE, clock);
    verifier.valid = token(Duration.ofMinutes(10));
    assertThat(authenticator.authenticate(verifier.valid, ANYONE))
        .isEqualTo(new TokenAuthenticator.Outcome.Authenticated(OPERATOR));
    int spray = TokenAuthenticator.REMEMBERED_REFUSED * 2;
    for (int i = 0; i < spray; i++) {
      assertThat(authenticator.authenticate(tokens.forged(AUDIENCE), ANYONE))
          .isInstanceOf(TokenAuthenticator.Outcome.Refused.class);
    }
    assertThat(authenticator.authenticate(verifier.valid, ANYONE))
        .isEqualTo(new TokenAuthenticator.Outcome.Authenticated(OPERATOR));
    assertThat(verifier.reviews).as("the valid token was reviewed once").hasValue(1 + spray);
  }

  @Test
  @DisplayName("A refused token is remembered; a verdict lasts a minute at most, never past exp")
  void verdictsAreRememberedUntilTheyExpire() {
    CountingVerifier verifier = new CountingVerifier();
    TokenAuthenticator authenticator = new TokenAuthenticator(verifier, AUDIENCE, clock);
    String bad = token(Duration.ofMinutes(10));
    authenticator.authenticate(bad, ANYONE);
    authenticator.authenticate(bad, ANYONE);
    assertThat(verifier.reviews).hasValue(1);

    verifier.valid = token(Duration.ofSeconds(30));
    authenticator.authenticate(verifier.valid, ANYONE);
    clock.set(now.plusSeconds(20));
    authenticator.authenticate(verifier.valid, ANYONE);
    assertThat(verifier.reviews).hasValue(2);
    clock.set(now.plusSeconds(40));
    authenticator.authenticate(verifier.valid, ANYONE);
    assertThat(verifier.reviews).as("asked again once the token's exp passed").hasValue(3);
  }

  @Test
  @DisplayName("Calls with the same new token share one TokenReview and take one slot")
  void sameTokenSharesOneReview() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger reviews = new AtomicInteger();
    TokenVerifier held =
        token -> {
          reviews.incrementAndGet();
          try {
            release.await(1, TimeUnit.MINUTES);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return Optional.of(OPERATOR);
        };
    TokenAuthenticator authenticator =
        new TokenAuthenticator(held, SigningKeys.NONE, AUDIENCE, clock, 1);
    String token = token(Duration.ofMinutes(10));
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<TokenAuthenticator.Outcome>> calls = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        calls.add(pool.submit(() -> authenticator.authenticate(token, ANYONE)));
      }
      while (reviews.get() == 0) {
        Thread.onSpinWait();
      }
      release.countDown();
      for (Future<TokenAuthenticator.Outcome> call : calls) {
        assertThat(call.get(1, TimeUnit.MINUTES))
            .isEqualTo(new TokenAuthenticator.Outcome.Authenticated(OPERATOR));
      }
      assertThat(reviews).hasValue(1);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  @DisplayName(
      "A cluster that cannot be asked makes the call unverifiable, and nothing is remembered")
  void unverifiableIsNotRemembered() {
    AtomicInteger reviews = new AtomicInteger();
    TokenAuthenticator authenticator =
        new TokenAuthenticator(
            token -> {
              reviews.incrementAndGet();
              throw new IllegalStateException("the TokenReview failed: connection refused");
            },
            AUDIENCE,
            clock);
    String token = token(Duration.ofMinutes(10));
    assertThat(authenticator.authenticate(token, ANYONE))
        .isEqualTo(
            new TokenAuthenticator.Outcome.Unverifiable(
                "the TokenReview failed: connection refused"));
    authenticator.authenticate(token, ANYONE);
    assertThat(reviews).hasValue(2);
  }
}
