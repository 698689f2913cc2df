package io.thinvol.addons;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.thinvol.addons.call.ReclaimCaller;
import io.thinvol.api.kube.Conditions;
import io.thinvol.api.v1alpha1.ReclaimSpaceJob;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Many jobs on one node: the limits hold across all of them, and waiting jobs say why. */
class ReclaimLoadTest extends AddonsClusterTest {

  private static final int VOLUMES = 50;
  private static final int JOBS_PER_VOLUME = 4;
  private static final int PER_NODE = 2;

  private final FakeDriver driver = new FakeDriver();

  @Override
  ReclaimCaller caller() {
    return driver;
  }

  @AfterEach
  void closeDriver() {
    driver.close();
  }

  @Test
  void twoHundredJobsNeverExceedTheNodeLimitOrTwoCallsOnAVolume() {
    backend(PER_NODE, "10m");
    driverPod("node-a", "10.0.0.1", 9070);
    driver.delay(Duration.ofMillis(40));
    for (int v = 0; v < VOLUMES; v++) {
      boundClaim("data-" + v, "vol-" + v, "node-a");
    }
    // Every status the operator writes, seen through a watch (a poll of the list would see a
    // queued job only if it looked in the instant between its writes).
    Set<String> queuedMessages = ConcurrentHashMap.newKeySet();
    try (Watch statuses =
        client
            .resources(ReclaimSpaceJob.class)
            .inNamespace(APPS)
            .watch(
                new Watcher<>() {
                  @Override
                  public void eventReceived(Action action, ReclaimSpaceJob job) {
                    if (job.getStatus() != null) {
                      Conditions.find(job.getStatus().getConditions(), "Running")
                          .filter(c -> "Queued".equals(c.getReason()))
                          .ifPresent(c -> queuedMessages.add(c.getMessage()));
                    }
                  }

                  @Override
                  public void onClose(WatcherException cause) {}
                })) {
      for (int j = 0; j < JOBS_PER_VOLUME; j++) {
        for (int v = 0; v < VOLUMES; v++) {
          job("job-" + v + "-" + j, "data-" + v, s -> {});
        }
      }

      await(
          "all jobs to finish",
          () ->
              client.resources(ReclaimSpaceJob.class).inNamespace(APPS).list().getItems().stream()
                  .allMatch(job -> job.getStatus() != null && job.getStatus().getResult() != null));
    }

    List<ReclaimSpaceJob> jobs =
        client.resources(ReclaimSpaceJob.class).inNamespace(APPS).list().getItems();
    assertThat(jobs).hasSize(VOLUMES * JOBS_PER_VOLUME);
    assertThat(jobs).allMatch(job -> "Succeeded".equals(job.getStatus().getResult()));
    assertThat(driver.calls()).hasSize(VOLUMES * JOBS_PER_VOLUME);
    assertThat(driver.highestInFlightOnPod("thinvol-local-node-node-a")).isEqualTo(PER_NODE);
    assertThat(driver.highestInFlightOnAnyVolume()).isEqualTo(1);
    // how many run when a job is queued depends on timing; that it names the node and its limit
    // does not (the limit itself is held: highestInFlightOnPod above)
    assertThat(queuedMessages)
        .anyMatch(
            m ->
                m.startsWith("waiting for node node-a: ")
                    && m.contains(" of 2 reclaims allowed there are running"));
    assertThat(addons.metrics().render())
        .contains("thinvol_reclaimspace_jobs_total{result=\"Succeeded\",reason=\"Reclaimed\"} 200");
  }
}
