package io.thinvol.driver.auth;

import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Admits a call only with {@code authorization: Bearer <token>} of an allowed ServiceAccount: no or
 * an invalid token is UNAUTHENTICATED, another account's token PERMISSION_DENIED (the allowed
 * accounts are logged, not told to the caller), UNAVAILABLE while too many tokens are being
 * reviewed. Tokens are never logged.
 */
public final class BearerTokenInterceptor implements ServerInterceptor {

  private static final Logger log = LoggerFactory.getLogger(BearerTokenInterceptor.class);
  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
  private static final String BEARER = "Bearer ";

  private final TokenAuthenticator authenticator;
  private final Set<String> allowedUsernames;
  private final Map<String, Set<String>> methodOnlyUsernames;
  private final Set<String> exclusiveMethods;

  /**
   * @param allowedAccounts ServiceAccounts as {@code namespace:name}
   */
  public BearerTokenInterceptor(TokenAuthenticator authenticator, Set<String> allowedAccounts) {
    this(authenticator, allowedAccounts, Map.of(), Set.of());
  }

  /**
   * @param allowedAccounts ServiceAccounts as {@code namespace:name}, allowed every method
   * @param methodOnlyAccounts by full method name, ServiceAccounts allowed that method and no other
   * @param exclusiveMethods methods that only their {@code methodOnlyAccounts} may call, not even
   *     the {@code allowedAccounts} (a peer's copy of a volume is for peers alone)
   */
  public BearerTokenInterceptor(
      TokenAuthenticator authenticator,
      Set<String> allowedAccounts,
      Map<String, Set<String>> methodOnlyAccounts,
      Set<String> exclusiveMethods) {
    this.authenticator = authenticator;
    this.allowedUsernames = usernames(allowedAccounts);
    this.methodOnlyUsernames =
        methodOnlyAccounts.entrySet().stream()
            .collect(Collectors.toMap(Map.Entry::getKey, e -> usernames(e.getValue())));
    this.exclusiveMethods = Set.copyOf(exclusiveMethods);
  }

  private static Set<String> usernames(Set<String> accounts) {
    return accounts.stream().map(a -> "system:serviceaccount:" + a).collect(Collectors.toSet());
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
    String method = call.getMethodDescriptor().getFullMethodName();
    Status refusal = check(headers.get(AUTHORIZATION), method);
    if (refusal != null) {
      log.debug("refused {}: {}", method, refusal.getDescription());
      call.close(refusal, new Metadata());
      return new ServerCall.Listener<>() {};
    }
    return next.startCall(call, headers);
  }

  private Status check(String authorization, String method) {
    if (authorization == null
        || !authorization.startsWith(BEARER)
        || authorization.substring(BEARER.length()).isBlank()) {
      return Status.UNAUTHENTICATED.withDescription(
          "this endpoint requires 'authorization: Bearer <ServiceAccount token>'");
    }
    TokenAuthenticator.Outcome outcome =
        authenticator.authenticate(
            authorization.substring(BEARER.length()).strip(),
            username -> mayCall(username, method));
    if (outcome instanceof TokenAuthenticator.Outcome.Authenticated authenticated) {
      return mayCall(authenticated.username(), method)
          ? null
          : denied(authenticated.username(), method);
    }
    if (outcome instanceof TokenAuthenticator.Outcome.NotAdmitted notAdmitted) {
      return denied(notAdmitted.username(), method);
    }
    if (outcome instanceof TokenAuthenticator.Outcome.Refused refused) {
      return Status.UNAUTHENTICATED.withDescription(refused.reason());
    }
    if (outcome instanceof TokenAuthenticator.Outcome.Unverifiable unverifiable) {
      log.warn("cannot verify a token for {}: {}", method, unverifiable.reason());
      return Status.UNAVAILABLE.withDescription(
          "cannot verify the token now: " + unverifiable.reason());
    }
    return Status.UNAVAILABLE.withDescription(
        "too many tokens are being reviewed right now; retry in a moment");
  }

  private boolean mayCall(String username, String method) {
    Set<String> methodOnly = methodOnlyUsernames.getOrDefault(method, Set.of());
    if (exclusiveMethods.contains(method)) {
      return methodOnly.contains(username);
    }
    return allowedUsernames.contains(username) || methodOnly.contains(username);
  }

  private Status denied(String username, String method) {
    log.warn(
        "refused {} to {}: only {} may call the CSI-Addons port (--addons-allowed-serviceaccounts)",
        method,
        username,
        allowedUsernames);
    return Status.PERMISSION_DENIED.withDescription(
        username + " may not call this endpoint; the driver's log names who may");
  }
}
