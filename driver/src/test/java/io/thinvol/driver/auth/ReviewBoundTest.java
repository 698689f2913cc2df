package io.thinvol.driver.auth;

import static io.thinvol.driver.GrpcAssertions.assertCode;
import static io.thinvol.driver.auth.TlsAddonsPort.AUDIENCE;
import static io.thinvol.driver.auth.TlsAddonsPort.OPERATOR;
import static org.assertj.core.api.Assertions.assertThat;

import csiaddons.identity.GetCapabilitiesRequest;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.thinvol.driver.DriverHarness;
import io.thinvol.driver.client.AddonsClient;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Tokens that look right cost a TokenReview each; at most {@value
 * TokenAuthenticator#MAX_CONCURRENT_REVIEWS} run at once, and a call past that is refused at once
 * with UNAVAILABLE (the operator retries those) instead of queueing on the API server.
 */
class ReviewBoundTest {

  /** A TokenReview that answers only when the test lets it; every token is the operator's. */
  private static final class HeldReviews implements TokenVerifier {
    final Semaphore started = new Semaphore(0);
    final CountDownLatch release = new CountDownLatch(1);
    final AtomicInteger count = new AtomicInteger();

    @Override
    public Optional<String> username(String token) {
      count.incrementAndGet();
      started.release();
      try {
        release.await(1, TimeUnit.MINUTES);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return Optional.of(OPERATOR);
    }
  }

  @Test
  @DisplayName("Past the bound of concurrent TokenReviews a call is UNAVAILABLE at once")
  void pastTheBoundUnavailable() throws Exception {
    ServiceAccountTokens tokens = new ServiceAccountTokens();
    Instant exp = Instant.now().plus(Duration.ofMinutes(10));
    HeldReviews reviews = new HeldReviews();
    ExecutorService pool = Executors.newCachedThreadPool();
    try (DriverHarness volumes = new DriverHarness();
        TlsAddonsPort port = TlsAddonsPort.start(volumes, reviews)) {
      List<Future<?>> held = new ArrayList<>();
      for (int i = 0; i < TokenAuthenticator.MAX_CONCURRENT_REVIEWS; i++) {
        String token = tokens.issue(TlsAddonsPort.OPERATOR_ACCOUNT, AUDIENCE, exp);
        held.add(pool.submit(() -> capabilities(port, token)));
      }
      assertThat(
              reviews.started.tryAcquire(
                  TokenAuthenticator.MAX_CONCURRENT_REVIEWS, 1, TimeUnit.MINUTES))
          .as("the first calls are being reviewed")
          .isTrue();

      String oneMore = tokens.issue(TlsAddonsPort.OPERATOR_ACCOUNT, AUDIENCE, exp);
      long before = System.nanoTime();
      try (AddonsClient addons = port.addons("Bearer " + oneMore)) {
        assertThat(
                assertCode(
                        Status.Code.UNAVAILABLE,
                        () ->
                            addons
                                .identity()
                                .getCapabilities(GetCapabilitiesRequest.getDefaultInstance()))
                    .getStatus()
                    .getDescription())
            .contains("retry");
      }
      assertThat(Duration.ofNanos(System.nanoTime() - before))
          .as("refused without waiting for a review")
          .isLessThan(Duration.ofSeconds(20));
      assertThat(reviews.count).hasValue(TokenAuthenticator.MAX_CONCURRENT_REVIEWS);

      reviews.release.countDown();
      for (Future<?> call : held) {
        call.get(1, TimeUnit.MINUTES);
      }
      capabilities(port, oneMore);
      assertThat(reviews.count)
          .as("once the reviews are done the refused token is reviewed")
          .hasValue(TokenAuthenticator.MAX_CONCURRENT_REVIEWS + 1);
    } finally {
      pool.shutdownNow();
    }
  }

  private static Void capabilities(TlsAddonsPort port, String token) throws Exception {
    try (AddonsClient addons = port.addons("Bearer " + token)) {
      addons.identity().getCapabilities(GetCapabilitiesRequest.getDefaultInstance());
    } catch (StatusRuntimeException e) {
      throw new AssertionError("the held call failed: " + e.getStatus(), e);
    }
    return null;
  }
}
