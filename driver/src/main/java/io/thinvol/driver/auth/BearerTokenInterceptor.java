package io.thinvol.driver.auth;

import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Admits a call only with {@code authorization: Bearer <token>} of an allowed ServiceAccount: no or
 * an invalid token is UNAUTHENTICATED, another account's token PERMISSION_DENIED. Verdicts are
 * remembered for a minute (keyed by the token's hash, never the token) so a burst of calls costs
 * one TokenReview. Tokens are never logged.
 */
public final class BearerTokenInterceptor implements ServerInterceptor {

  private static final Logger log = LoggerFactory.getLogger(BearerTokenInterceptor.class);
  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
  private static final String BEARER = "Bearer ";
  private static final Duration REMEMBER = Duration.ofMinutes(1);
  private static final int MAX_REMEMBERED = 1024;

  private record Verdict(Optional<String> username, long expiresAtMillis) {}

  private final TokenVerifier verifier;
  private final Set<String> allowedUsernames;
  private final Clock clock;
  private final ConcurrentMap<String, Verdict> verdicts = new ConcurrentHashMap<>();

  /**
   * @param allowedAccounts ServiceAccounts as {@code namespace:name}
   */
  public BearerTokenInterceptor(TokenVerifier verifier, Set<String> allowedAccounts, Clock clock) {
    this.verifier = verifier;
    this.allowedUsernames =
        allowedAccounts.stream()
            .map(a -> "system:serviceaccount:" + a)
            .collect(java.util.stream.Collectors.toSet());
    this.clock = clock;
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
    Status refusal = check(headers.get(AUTHORIZATION));
    if (refusal != null) {
      log.info(
          "refused {}: {}",
          call.getMethodDescriptor().getFullMethodName(),
          refusal.getDescription());
      call.close(refusal, new Metadata());
      return new ServerCall.Listener<>() {};
    }
    return next.startCall(call, headers);
  }

  private Status check(String authorization) {
    if (authorization == null
        || !authorization.startsWith(BEARER)
        || authorization.substring(BEARER.length()).isBlank()) {
      return Status.UNAUTHENTICATED.withDescription(
          "this endpoint requires 'authorization: Bearer <ServiceAccount token>'");
    }
    Optional<String> username;
    try {
      username = verdict(authorization.substring(BEARER.length()).strip());
    } catch (IllegalStateException e) {
      return Status.UNAVAILABLE.withDescription("cannot verify the token now: " + e.getMessage());
    }
    if (username.isEmpty()) {
      return Status.UNAUTHENTICATED.withDescription(
          "the token is not valid (TokenReview refused it)");
    }
    if (!allowedUsernames.contains(username.get())) {
      return Status.PERMISSION_DENIED.withDescription(
          username.get() + " may not call this endpoint; allowed: " + allowedUsernames);
    }
    return null;
  }

  private Optional<String> verdict(String token) {
    String key = sha256(token);
    long now = clock.millis();
    Verdict known = verdicts.get(key);
    if (known != null && known.expiresAtMillis() > now) {
      return known.username();
    }
    Optional<String> username = verifier.username(token);
    if (verdicts.size() >= MAX_REMEMBERED) {
      verdicts.clear();
    }
    verdicts.put(key, new Verdict(username, now + REMEMBER.toMillis()));
    return username;
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
}
