package io.thinvol.addons;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.thinvol.addons.call.ReclaimCaller;
import io.thinvol.api.BackendNames;
import io.thinvol.api.v1alpha1.ReclaimSpaceCronJob;
import io.thinvol.api.v1alpha1.ReclaimSpaceJob;
import io.thinvol.testing.ApiRequest;
import io.thinvol.testing.DescribedEvents;
import io.thinvol.testing.StrictApiServer;
import io.thinvol.testing.TestCluster;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Annotation schedules: which one wins, opting out, changes taken at once, and a run that leaves
 * nothing behind but an Event on the PVC. The next run of every PVC is read from /metrics.
 */
class ScheduleTest extends AddonsClusterTest {

  private static final Instant START = Instant.parse("2026-11-18T10:00:00Z");
  private static final String OTHER = "other";

  private final FakeDriver driver = new FakeDriver();
  private final MutableClock clock = new MutableClock(START);

  @Override
  ReclaimCaller caller() {
    return driver;
  }

  @Override
  Clock clock() {
    return clock;
  }

  @Override
  Duration staggerWindow() {
    return Duration.ZERO; // runs on the minute the schedule says, so the test can predict them
  }

  @BeforeEach
  void cluster() {
    backend(1, "10m");
    driverPod("node-a", "10.0.0.1", 9070);
    String driverName = BackendNames.driver(BACKEND);
    storageClass(BACKEND, driverName, Map.of("reclaimspace.thinvol.io/schedule", "0 1 * * *"));
    storageClass("plain", driverName, Map.of());
    storageClass(
        "ceph", "rbd.csi.ceph.com", Map.of("reclaimspace.thinvol.io/schedule", "0 1 * * *"));
    merge(Namespace.class, null, APPS, annotate("reclaimspace.thinvol.io/schedule", "0 2 * * *"));
    client
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(OTHER).endMetadata().build())
        .create();
  }

  @AfterEach
  void closeDriver() {
    driver.close();
  }

  @Test
  void thePvcOutranksItsNamespaceWhichOutranksItsStorageClassWhichOutranksTheBackend() {
    claim(APPS, "own", BACKEND, Map.of("reclaimspace.thinvol.io/schedule", "0 3 * * *"));
    claim(APPS, "from-namespace", BACKEND, Map.of());
    claim(OTHER, "from-class", BACKEND, Map.of());
    claim(OTHER, "from-backend", "plain", Map.of());
    claim(OTHER, "not-ours", "ceph", Map.of());

    awaitNextRun(APPS, "own", "PersistentVolumeClaim", "2026-11-19T03:00:00Z");
    awaitNextRun(APPS, "from-namespace", "Namespace", "2026-11-19T02:00:00Z");
    awaitNextRun(OTHER, "from-class", "StorageClass", "2026-11-19T01:00:00Z");
    awaitNextRun(OTHER, "from-backend", "StorageBackend", "2026-11-22T00:00:00Z"); // @weekly
    assertThat(addons.metrics().render())
        .doesNotContain("persistentvolumeclaim=\"not-ours\"")
        .contains("thinvol_reclaimspace_scheduled_volumes 4");
    assertNoStoredObjects();
  }

  @Test
  void optingOutAndChangingSchedulesTakeEffectWithoutARestart() {
    claim(APPS, "app-data", BACKEND, Map.of());
    claim(OTHER, "logs", BACKEND, Map.of());
    awaitNextRun(APPS, "app-data", "Namespace", "2026-11-19T02:00:00Z");
    awaitNextRun(OTHER, "logs", "StorageClass", "2026-11-19T01:00:00Z");

    merge(Namespace.class, null, APPS, annotate("reclaimspace.thinvol.io/enable", "false"));
    await(
        "app-data off its schedule",
        () -> !addons.metrics().render().contains("persistentvolumeclaim=\"app-data\""));
    await("ReclaimDisabled", () -> eventReasons(APPS, "app-data").contains("ReclaimDisabled"));

    merge(
        PersistentVolumeClaim.class,
        APPS,
        "app-data",
        "{\"metadata\":{\"annotations\":{\"reclaimspace.thinvol.io/enable\":\"true\","
            + "\"reclaimspace.thinvol.io/schedule\":\"30 4 * * *\"}}}");
    awaitNextRun(APPS, "app-data", "PersistentVolumeClaim", "2026-11-19T04:30:00Z");

    merge(
        StorageClass.class, null, BACKEND, annotate("reclaimspace.thinvol.io/schedule", "@hourly"));
    awaitNextRun(OTHER, "logs", "StorageClass", "2026-11-18T11:00:00Z");
    await("ReclaimScheduled", () -> eventReasons(OTHER, "logs").contains("ReclaimScheduled"));

    merge(
        PersistentVolumeClaim.class,
        OTHER,
        "logs",
        annotate("reclaimspace.thinvol.io/schedule", "not cron"));
    await("InvalidSchedule", () -> eventReasons(OTHER, "logs").contains("InvalidSchedule"));
    awaitNextRun(OTHER, "logs", "StorageClass", "2026-11-18T11:00:00Z");
  }

  @Test
  void aRunReadsNothingLiveAndLeavesOnlyAnEventOnThePvc() {
    claim(APPS, "hot", BACKEND, Map.of("reclaimspace.thinvol.io/schedule", "@hourly"));
    awaitNextRun(APPS, "hot", "PersistentVolumeClaim", "2026-11-18T11:00:00Z");
    int before = operatorRequests().size();

    clock.set(Instant.parse("2026-11-18T11:00:05Z"));
    merge(
        PersistentVolumeClaim.class,
        APPS,
        "hot",
        annotate("test/poke", UUID.randomUUID().toString()));

    await("SpaceReclaimed", () -> eventReasons(APPS, "hot").contains("SpaceReclaimed"));
    await(
        "the succeeded job deleted",
        () ->
            client.resources(ReclaimSpaceJob.class).inNamespace(APPS).list().getItems().isEmpty());
    assertThat(driver.calls("vol-hot")).hasSize(1);
    assertThat(
            client.v1().events().inNamespace(APPS).list().getItems().stream()
                .filter(e -> "SpaceReclaimed".equals(e.getReason()))
                .findFirst()
                .orElseThrow()
                .getMessage())
        .startsWith("reclaimed 256Mi on node node-a (ReclaimSpaceJob hot-reclaim-");
    awaitNextRun(APPS, "hot", "PersistentVolumeClaim", "2026-11-18T12:00:00Z");
    assertNoStoredObjects();
    List<ApiRequest> run = operatorRequests().subList(before, operatorRequests().size());
    assertThat(run)
        .as("a run writes (the job, its status, the claim's last run, Events)")
        .anyMatch(r -> r.verb().equals("patch") && r.resource().equals("persistentvolumeclaims"));
    assertThat(run)
        .as(
            "and reads its claim, volume, backend and pods from the informers: at 5,000 claims a"
                + " live read is 5,000 requests a period")
        .noneMatch(r -> r.verb().equals("get") || r.verb().equals("list"));
  }

  private List<ApiRequest> operatorRequests() {
    return cluster.decisions().stream()
        .filter(d -> d.user().equals(TestCluster.OPERATOR))
        .map(StrictApiServer.Decision::request)
        .toList();
  }

  @Test
  void runsMissedWhileNoOperatorRanAreMadeUpOnceTheLatestOnly() {
    claim(APPS, "hourly", BACKEND, Map.of("reclaimspace.thinvol.io/schedule", "@hourly"));
    claim(APPS, "never-ran", BACKEND, Map.of("reclaimspace.thinvol.io/schedule", "@hourly"));
    awaitNextRun(APPS, "hourly", "PersistentVolumeClaim", "2026-11-18T11:00:00Z");
    awaitNextRun(APPS, "never-ran", "PersistentVolumeClaim", "2026-11-18T11:00:00Z");
    clock.set(Instant.parse("2026-11-18T11:00:05Z"));
    merge(PersistentVolumeClaim.class, APPS, "hourly", annotate("test/poke", "1"));
    await("the 11:00 run", () -> eventReasons(APPS, "hourly").contains("SpaceReclaimed"));
    assertThat(
            client
                .persistentVolumeClaims()
                .inNamespace(APPS)
                .withName("hourly")
                .get()
                .getMetadata()
                .getAnnotations())
        .containsEntry("reclaimspace.thinvol.io/last-scheduled-run", "2026-11-18T11:00:00Z");

    // Down from 11:00:05 to 14:30: the runs of 12:00, 13:00 and 14:00 are missed.
    restartOperator(() -> clock.set(Instant.parse("2026-11-18T14:30:00Z")));

    await("the make-up run", () -> driver.calls("vol-hourly").size() == 2);
    await("its Event", () -> eventReasons(APPS, "hourly").contains("MissedRunStarted"));
    assertThat(
            DescribedEvents.events(client, null, APPS, "hourly", null).stream()
                .filter(e -> "MissedRunStarted".equals(e.getReason()))
                .map(Event::getMessage))
        .singleElement()
        .asString()
        .contains("3 scheduled run(s)", "2026-11-18T14:00:00Z");
    awaitNextRun(APPS, "hourly", "PersistentVolumeClaim", "2026-11-18T15:00:00Z");
    awaitNextRun(APPS, "never-ran", "PersistentVolumeClaim", "2026-11-18T15:00:00Z");
    assertThat(driver.calls("vol-hourly")).as("the latest missed run only").hasSize(2);
    assertThat(driver.calls("vol-never-ran"))
        .as("a claim with no recorded run starts from now")
        .isEmpty();
  }

  @Test
  void upstreamCsiAddonsKeysOnAThinvolClaimGetOneWarningNamingThinvolsKey() {
    String upstream = "reclaimspace.csiaddons.openshift.io/schedule";
    claim(APPS, "odf-habit", BACKEND, Map.of(upstream, "@weekly"));
    claim(OTHER, "on-ceph", "ceph", Map.of(upstream, "@weekly"));
    await(
        "UpstreamAnnotationIgnored",
        () -> eventReasons(APPS, "odf-habit").contains("UpstreamAnnotationIgnored"));

    // Two more reconciles of the claim (each seen in its next run) say nothing more.
    merge(
        PersistentVolumeClaim.class,
        APPS,
        "odf-habit",
        annotate("reclaimspace.thinvol.io/schedule", "30 4 * * *"));
    awaitNextRun(APPS, "odf-habit", "PersistentVolumeClaim", "2026-11-19T04:30:00Z");
    merge(
        PersistentVolumeClaim.class,
        APPS,
        "odf-habit",
        annotate("reclaimspace.thinvol.io/schedule", "30 5 * * *"));
    awaitNextRun(APPS, "odf-habit", "PersistentVolumeClaim", "2026-11-19T05:30:00Z");

    List<Event> warnings =
        DescribedEvents.events(client, null, APPS, "odf-habit", null).stream()
            .filter(e -> "UpstreamAnnotationIgnored".equals(e.getReason()))
            .toList();
    assertThat(warnings)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.getType()).isEqualTo("Warning");
              assertThat(e.getMessage())
                  .contains(upstream, "reclaimspace.thinvol.io/schedule", "upstream CSI-Addons");
            });
    assertThat(eventReasons(OTHER, "on-ceph"))
        .as("not a thinvol claim: the upstream controller's business")
        .doesNotContain("UpstreamAnnotationIgnored");
  }

  private void claim(
      String namespace, String name, String storageClass, Map<String, String> annotations) {
    boundClaim(
        namespace, name, storageClass, "vol-" + name, "node-a", BackendNames.driver(BACKEND));
    if (!annotations.isEmpty()) {
      PersistentVolumeClaim claim =
          client.persistentVolumeClaims().inNamespace(namespace).withName(name).get();
      claim.getMetadata().setAnnotations(annotations);
      client.resource(claim).update();
    }
  }

  private void awaitNextRun(String namespace, String claim, String source, String next) {
    String line =
        "thinvol_reclaimspace_next_run_timestamp_seconds{namespace=\""
            + namespace
            + "\",persistentvolumeclaim=\""
            + claim
            + "\",source=\""
            + source
            + "\"} "
            + Instant.parse(next).getEpochSecond();
    await(line, () -> addons.metrics().render().contains(line));
  }

  /** Schedules live in memory: no CronJob or leftover job per PVC. */
  private void assertNoStoredObjects() {
    assertThat(client.resources(ReclaimSpaceCronJob.class).inAnyNamespace().list().getItems())
        .isEmpty();
    assertThat(client.resources(ReclaimSpaceJob.class).inAnyNamespace().list().getItems())
        .isEmpty();
  }

  private static String annotate(String key, String value) {
    return "{\"metadata\":{\"annotations\":{\"" + key + "\":\"" + value + "\"}}}";
  }
}
