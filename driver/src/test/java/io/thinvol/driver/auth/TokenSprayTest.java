package io.thinvol.driver.auth;

import static io.thinvol.driver.auth.TlsAddonsPort.AUDIENCE;
import static io.thinvol.driver.auth.TlsAddonsPort.OPERATOR;
import static org.assertj.core.api.Assertions.assertThat;

import csiaddons.identity.GetCapabilitiesRequest;
import csiaddons.identity.IdentityGrpc;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.MetadataUtils;
import io.thinvol.driver.DriverHarness;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A pod that reaches port 9070 sprays bearer tokens. Issue 16, point 6: random tokens each cost the
 * API server a TokenReview (5,000 for 5,000 calls); since then what is not shaped like a token of
 * this cluster for the addons audience is refused on the node. Issue 29, point 3: tokens with the
 * right header, claims and audience but a random signature still cost one TokenReview each (4,990
 * for 5,000 calls); now their signature is checked against the cluster's published keys.
 */
@EnableKubernetesMockClient(https = false)
class TokenSprayTest {

  private static final Logger log = LoggerFactory.getLogger(TokenSprayTest.class);
  private static final int SPRAY = 5_000;
  private static final int SPRAYERS = 8;

  KubernetesMockServer server;

  private final ServiceAccountTokens tokens = new ServiceAccountTokens();

  /** What the spray got, and what the operator got meanwhile. */
  private record Sprayed(
      Map<Status.Code, Integer> codes, List<Status.Code> operator, double seconds) {

    /** Every sprayed call refused as unauthenticated; every one of the operator's succeeded. */
    void refusedWhileTheOperatorWasServed() {
      assertThat(codes).containsOnlyKeys(Status.Code.UNAUTHENTICATED);
      assertThat(codes.get(Status.Code.UNAUTHENTICATED)).isEqualTo(SPRAY);
      assertThat(operator).as("the operator's calls during the spray").hasSizeGreaterThan(1);
      assertThat(operator).containsOnly(Status.Code.OK);
    }
  }

  @Test
  @DisplayName(
      "5,000 calls with random tokens cost fewer than 50 TokenReviews; the operator's calls"
          + " succeed meanwhile")
  void sprayCostsTheApiServerNothing() throws Exception {
    MockTokenReviews reviews = MockTokenReviews.on(server);
    Sprayed sprayed = spray(reviews, n -> n % 2 == 0 ? tokens.randomString() : tokens.randomJwt());
    log.info(
        "{} random-token calls in {} s: {}; {} TokenReviews; the operator's {} calls: {}",
        SPRAY,
        String.format("%.1f", sprayed.seconds()),
        sprayed.codes(),
        reviews.requests().size(),
        sprayed.operator().size(),
        sprayed.operator().stream().distinct().toList());

    sprayed.refusedWhileTheOperatorWasServed();
    assertThat(reviews.requests()).as("TokenReviews for the spray").hasSizeLessThan(50);
  }

  @Test
  @DisplayName(
      "5,000 calls with the cluster's header and the operator's claims but a random signature cost"
          + " fewer than 50 requests to the API server; the operator's calls succeed meanwhile")
  void forgedSignaturesCostTheApiServerNothing() throws Exception {
    MockTokenReviews reviews = MockTokenReviews.on(server);
    MockKeySet keySet = MockKeySet.on(server, tokens);
    Sprayed sprayed = spray(reviews, n -> tokens.forged(TlsAddonsPort.OPERATOR_ACCOUNT, AUDIENCE));
    int apiRequests = reviews.requests().size() + keySet.requests();
    log.info(
        "{} forged-signature calls in {} s: {}; requests to the API server: {} ({} TokenReviews,"
            + " the operator's token's included; {} key set reads); the operator's {} calls: {}",
        SPRAY,
        String.format("%.1f", sprayed.seconds()),
        sprayed.codes(),
        apiRequests,
        reviews.requests().size(),
        keySet.requests(),
        sprayed.operator().size(),
        sprayed.operator().stream().distinct().toList());

    sprayed.refusedWhileTheOperatorWasServed();
    assertThat(apiRequests).as("requests to the API server for the spray").isLessThan(50);
  }

  /**
   * Sends {@value #SPRAY} calls from {@value #SPRAYERS} threads with {@code token.apply(n)} for the
   * n-th, while the operator calls with its own new token until the spray is done.
   */
  private Sprayed spray(MockTokenReviews reviews, IntFunction<String> token) throws Exception {
    String operatorToken =
        reviews.issued(
            tokens.issue(
                TlsAddonsPort.OPERATOR_ACCOUNT,
                AUDIENCE,
                Instant.now().plus(Duration.ofMinutes(10))),
            OPERATOR);
    try (DriverHarness volumes = new DriverHarness();
        TlsAddonsPort port =
            TlsAddonsPort.start(
                volumes,
                new KubernetesTokenVerifier(() -> MockTokenReviews.api(server), AUDIENCE))) {
      ManagedChannel sprayChannel = port.channel(null);
      ManagedChannel operatorChannel = port.channel("Bearer " + operatorToken);
      ExecutorService pool = Executors.newFixedThreadPool(SPRAYERS + 1);
      try {
        Map<Status.Code, AtomicInteger> codes = new ConcurrentHashMap<>();
        AtomicInteger sent = new AtomicInteger();
        AtomicBoolean spraying = new AtomicBoolean(true);
        long started = System.nanoTime();
        List<Future<?>> sprayers = new ArrayList<>();
        for (int s = 0; s < SPRAYERS; s++) {
          sprayers.add(
              pool.submit(
                  () -> {
                    for (int n; (n = sent.getAndIncrement()) < SPRAY; ) {
                      Status.Code code = call(sprayChannel, "Bearer " + token.apply(n));
                      codes.computeIfAbsent(code, c -> new AtomicInteger()).incrementAndGet();
                    }
                    return null;
                  }));
        }
        Future<List<Status.Code>> operator =
            pool.submit(
                () -> {
                  List<Status.Code> operatorCodes = new ArrayList<>();
                  while (spraying.get() || operatorCodes.isEmpty()) {
                    operatorCodes.add(call(operatorChannel, null));
                  }
                  return operatorCodes;
                });
        for (Future<?> sprayer : sprayers) {
          sprayer.get(5, TimeUnit.MINUTES);
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        spraying.set(false);
        List<Status.Code> operatorCodes = operator.get(1, TimeUnit.MINUTES);
        Map<Status.Code, Integer> counted = new TreeMap<>();
        codes.forEach((code, count) -> counted.put(code, count.get()));
        return new Sprayed(counted, operatorCodes, seconds);
      } finally {
        pool.shutdownNow();
        sprayChannel.shutdownNow();
        operatorChannel.shutdownNow();
      }
    }
  }

  /** One GetCapabilities; {@code authorization} overrides the channel's when set. */
  private static Status.Code call(ManagedChannel channel, String authorization) {
    IdentityGrpc.IdentityBlockingStub stub = IdentityGrpc.newBlockingStub(channel);
    if (authorization != null) {
      Metadata headers = new Metadata();
      headers.put(
          Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), authorization);
      stub = stub.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers));
    }
    try {
      stub.withDeadlineAfter(30, TimeUnit.SECONDS)
          .getCapabilities(GetCapabilitiesRequest.getDefaultInstance());
      return Status.Code.OK;
    } catch (StatusRuntimeException e) {
      return e.getStatus().getCode();
    }
  }
}
