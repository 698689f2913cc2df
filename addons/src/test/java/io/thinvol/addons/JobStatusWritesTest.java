package io.thinvol.addons;

import static org.assertj.core.api.Assertions.assertThat;

import io.thinvol.addons.call.ReclaimCaller;
import io.thinvol.api.kube.Conditions;
import io.thinvol.api.v1alpha1.ReclaimSpaceJob;
import io.thinvol.testing.StrictApiServer;
import io.thinvol.testing.TestCluster;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * How often a job's status is written: each write is a request to the API server and an event to
 * every watcher of ReclaimSpaceJobs, and sits between a short reclaim and its result.
 */
class JobStatusWritesTest extends AddonsClusterTest {

  private final FakeDriver driver = new FakeDriver();

  @Override
  ReclaimCaller caller() {
    return driver;
  }

  @BeforeEach
  void cluster() {
    backend(1, "10m");
    driverPod("node-a", "10.0.0.1", 9070);
  }

  @AfterEach
  void closeDriver() {
    driver.close();
  }

  @Test
  void aShortReclaimIsSavedOnceWithItsResult() {
    boundClaim("data", "vol-1", "node-a");

    ReclaimSpaceJob job = awaitResult(job("short", "data", s -> {}).getMetadata().getName());

    assertThat(job.getStatus().getResult()).isEqualTo("Succeeded");
    assertThat(job.getStatus().getStartTime()).isNotNull();
    assertThat(job.getStatus().getLastAttemptTime()).isEqualTo(job.getStatus().getStartTime());
    assertThat(statusWrites("short")).isEqualTo(1);
    await("Events", () -> eventReasons(APPS, "short").size() == 2);
    assertThat(eventReasons(APPS, "short")).containsExactly("Started", "Succeeded");
  }

  @Test
  void aLongReclaimShowsItsProgressWhileTheCallRuns() {
    boundClaim("data", "vol-1", "node-a");
    driver.delay(Duration.ofSeconds(8));

    job("long", "data", s -> {});

    ReclaimSpaceJob running =
        await(
            "the job to show that it is reclaiming",
            () -> {
              ReclaimSpaceJob job =
                  client.resources(ReclaimSpaceJob.class).inNamespace(APPS).withName("long").get();
              return job.getStatus() != null
                      && Conditions.find(job.getStatus().getConditions(), "Running")
                          .filter(c -> "Reclaiming".equals(c.getReason()))
                          .isPresent()
                  ? job
                  : null;
            });
    assertThat(running.getStatus().getResult()).isNull();
    assertThat(running.getStatus().getMessage()).startsWith("reclaiming volume pv-data");
    assertThat(driver.calls("vol-1")).hasSize(1);
    // Events follow the write that they describe
    await("the Started Event", () -> eventReasons(APPS, "long").equals(List.of("Started")));
    assertThat(awaitResult("long").getStatus().getStartTime())
        .isEqualTo(running.getStatus().getStartTime());
    assertThat(statusWrites("long")).isEqualTo(2);
  }

  @Test
  void aJobGetsItsResultWhileTheApiServerHoldsItsEvents() {
    boundClaim("data", "vol-1", "node-a");
    CountDownLatch eventsHeld = new CountDownLatch(1);
    eventQueue.post(() -> awaitQuietly(eventsHeld)); // an Event request that does not return

    ReclaimSpaceJob job = awaitResult(job("held", "data", s -> {}).getMetadata().getName());

    assertThat(job.getStatus().getResult()).isEqualTo("Succeeded");
    assertThat(eventReasons(APPS, "held")).isEmpty();
    eventsHeld.countDown();
    await("Events", () -> eventReasons(APPS, "held").size() == 2);
    assertThat(eventReasons(APPS, "held")).containsExactly("Started", "Succeeded");
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The operator's writes of a job's status the API server accepted. */
  private long statusWrites(String job) {
    List<StrictApiServer.Decision> decisions = cluster.decisions();
    return decisions.stream()
        .filter(d -> d.user().equals(TestCluster.OPERATOR))
        .filter(d -> d.request().resource().equals("reclaimspacejobs/status"))
        .filter(d -> job.equals(d.request().name()))
        .filter(d -> d.code() < 300)
        .count();
  }
}
