package io.thinvol.driver.auth;

import io.thinvol.driver.auth.keys.SigningKeys;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.function.Predicate;

/**
 * Who a bearer token belongs to, at the least cost to the API server: a token that is not shaped
 * like one of this cluster's for our audience is refused without asking ({@link TokenScreen});
 * verdicts are remembered ({@link VerdictCache}); a token the cluster did not sign is refused, and
 * one it signed for an account that may not make the call is turned away, both without asking
 * ({@link SignatureCheck}); calls with the same unknown token share one TokenReview; and at most a
 * few TokenReviews run at once, past that the caller is told to retry. The TokenReview stays the
 * authority on a token that gets that far: it knows a deleted ServiceAccount or pod.
 */
public final class TokenAuthenticator {

  /** TokenReviews in flight at most; a spray of plausible tokens waits for none of them. */
  public static final int MAX_CONCURRENT_REVIEWS = 4;

  static final Duration REMEMBER = Duration.ofMinutes(1);
  static final int REMEMBERED_ACCEPTED = 256;
  static final int REMEMBERED_REFUSED = 4096;

  /** The answer about one token. */
  public sealed interface Outcome {
    /** The cluster says the token is {@code username}'s. */
    record Authenticated(String username) implements Outcome {}

    /** Not a valid token; {@code reason} is safe to tell the caller. */
    record Refused(String reason) implements Outcome {}

    /**
     * The cluster signed the token for {@code username}, who may not make this call: turned away
     * without a review, whose answer could only be a refusal too.
     */
    record NotAdmitted(String username) implements Outcome {}

    /** Too many TokenReviews in flight: cheap to refuse, the caller retries. */
    record Busy() implements Outcome {}

    /** The cluster could not be asked. */
    record Unverifiable(String reason) implements Outcome {}
  }

  private final TokenVerifier verifier;
  private final SigningKeys keys;
  private final String audience;
  private final Clock clock;
  private final Semaphore reviews;
  private final VerdictCache verdicts = new VerdictCache(REMEMBERED_ACCEPTED, REMEMBERED_REFUSED);
  private final Map<String, CompletableFuture<Optional<String>>> inFlight =
      new ConcurrentHashMap<>();

  /**
   * @param audience the audience the tokens must be issued for (the verifier asks for it too)
   */
  public TokenAuthenticator(TokenVerifier verifier, String audience, Clock clock) {
    this(verifier, verifier.signingKeys(), audience, clock, MAX_CONCURRENT_REVIEWS);
  }

  TokenAuthenticator(
      TokenVerifier verifier, SigningKeys keys, String audience, Clock clock, int maxReviews) {
    this.verifier = verifier;
    this.keys = keys;
    this.audience = audience;
    this.clock = clock;
    this.reviews = new Semaphore(maxReviews);
  }

  /**
   * @param admitted whether an account ({@code system:serviceaccount:<namespace>:<name>}) may make
   *     the call: a signed token of any other is not reviewed
   */
  public Outcome authenticate(String token, Predicate<String> admitted) {
    Instant now = clock.instant();
    TokenScreen.Result screened = TokenScreen.screen(token, audience, now);
    if (!screened.passed()) {
      return new Outcome.Refused(screened.refusal());
    }
    String key = sha256(token);
    VerdictCache.Verdict known = verdicts.get(key, now);
    if (known != null) {
      return outcome(Optional.ofNullable(known.username()));
    }
    SignatureCheck.Verdict signature = SignatureCheck.check(screened.token(), keys);
    if (signature instanceof SignatureCheck.Verdict.Forged forged) {
      return new Outcome.Refused(forged.reason());
    }
    // Unchecked (the keys cannot be read) goes on to the review, as before keys were read.
    String subject = screened.token().subject();
    if (signature instanceof SignatureCheck.Verdict.Signed && !admitted.test(subject)) {
      return new Outcome.NotAdmitted(subject);
    }
    return review(token, key, screened.token().expiresAt(), now);
  }

  /** Asks the cluster about a token no verdict is known for, sharing and bounding the reviews. */
  private Outcome review(String token, String key, Instant expiresAt, Instant now) {
    CompletableFuture<Optional<String>> mine = new CompletableFuture<>();
    CompletableFuture<Optional<String>> running = inFlight.putIfAbsent(key, mine);
    if (running != null) {
      return awaitOther(running);
    }
    try {
      if (!reviews.tryAcquire()) {
        mine.completeExceptionally(new BusyException());
        return new Outcome.Busy();
      }
      Optional<String> username;
      try {
        username = verifier.username(token);
      } catch (IllegalStateException e) {
        mine.completeExceptionally(e);
        return new Outcome.Unverifiable(e.getMessage());
      } finally {
        reviews.release();
      }
      Instant until = earlier(now.plus(REMEMBER), expiresAt);
      verdicts.put(key, new VerdictCache.Verdict(username.orElse(null), until));
      mine.complete(username);
      return outcome(username);
    } finally {
      // Whatever went wrong, no call waiting for this review may wait for ever.
      mine.completeExceptionally(new IllegalStateException("the TokenReview did not complete"));
      inFlight.remove(key, mine);
    }
  }

  /** Another call is asking about the same token: its answer is ours. */
  private static Outcome awaitOther(CompletableFuture<Optional<String>> running) {
    try {
      return outcome(running.get());
    } catch (ExecutionException e) {
      return e.getCause() instanceof BusyException
          ? new Outcome.Busy()
          : new Outcome.Unverifiable(e.getCause().getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Outcome.Unverifiable("interrupted while the token was being reviewed");
    }
  }

  private static Outcome outcome(Optional<String> username) {
    return username
        .<Outcome>map(Outcome.Authenticated::new)
        .orElseGet(() -> new Outcome.Refused("the token is not valid (TokenReview refused it)"));
  }

  private static Instant earlier(Instant a, Instant b) {
    return a.isBefore(b) ? a : b;
  }

  private static String sha256(String token) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static final class BusyException extends RuntimeException {
    BusyException() {
      super("too many TokenReviews in flight", null, false, false);
    }
  }
}
