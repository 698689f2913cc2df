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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Issue 16, point 6: a pod that reaches port 9070 sprays random bearer tokens. Before, every call
 * cost the API server a TokenReview (5,000 for 5,000 calls); now what is not a token of this
 * cluster for the addons audience is refused on the node.
 */
@EnableKubernetesMockClient(https = false)
class TokenSprayTest {

  private static final Logger log = LoggerFactory.getLogger(TokenSprayTest.class);
  private static final int SPRAY = 5_000;
  private static final int SPRAYERS = 8;

  KubernetesMockServer server;

  @Test
  @DisplayName(
      "5,000 calls with random tokens cost fewer than 50 TokenReviews; the operator's calls"
          + " succeed meanwhile")
  void sprayCostsTheApiServerNothing() throws Exception {
    MockTokenReviews reviews = MockTokenReviews.on(server);
    ServiceAccountTokens tokens = new ServiceAccountTokens();
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
        Map<Status.Code, AtomicInteger> sprayCodes = new ConcurrentHashMap<>();
        AtomicInteger sent = new AtomicInteger();
        AtomicBoolean spraying = new AtomicBoolean(true);
        long started = System.nanoTime();
        List<Future<?>> sprayers = new ArrayList<>();
        for (int s = 0; s < SPRAYERS; s++) {
          sprayers.add(
              pool.submit(
                  () -> {
                    for (int n; (n = sent.getAndIncrement()) < SPRAY; ) {
                      String token = n % 2 == 0 ? tokens.randomString() : tokens.randomJwt();
                      Status.Code code = call(sprayChannel, "Bearer " + token);
                      sprayCodes.computeIfAbsent(code, c -> new AtomicInteger()).incrementAndGet();
                    }
                    return null;
                  }));
        }
        Future<List<Status.Code>> operator =
            pool.submit(
                () -> {
                  List<Status.Code> codes = new ArrayList<>();
                  while (spraying.get() || codes.isEmpty()) {
                    codes.add(call(operatorChannel, null));
                  }
                  return codes;
                });
        for (Future<?> sprayer : sprayers) {
          sprayer.get(5, TimeUnit.MINUTES);
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        spraying.set(false);
        List<Status.Code> operatorCodes = operator.get(1, TimeUnit.MINUTES);
        log.info(
            "{} random-token calls in {} s: {}; {} TokenReviews; the operator's {} calls: {}",
            SPRAY,
            String.format("%.1f", seconds),
            sprayCodes,
            reviews.requests().size(),
            operatorCodes.size(),
            operatorCodes.stream().distinct().toList());

        assertThat(sprayCodes.keySet()).containsExactly(Status.Code.UNAUTHENTICATED);
        assertThat(sprayCodes.get(Status.Code.UNAUTHENTICATED)).hasValue(SPRAY);
        assertThat(reviews.requests()).as("TokenReviews for the spray").hasSizeLessThan(50);
        assertThat(operatorCodes).as("the operator's calls during the spray").hasSizeGreaterThan(1);
        assertThat(operatorCodes).containsOnly(Status.Code.OK);
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
