package io.thinvol.addons;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.thinvol.addons.FakeDriver.Answer;
import io.thinvol.addons.call.ReclaimCaller;
import io.thinvol.api.kube.Conditions;
import io.thinvol.api.v1alpha1.ConcurrencyPolicy;
import io.thinvol.api.v1alpha1.ReclaimSpaceCronJob;
import io.thinvol.api.v1alpha1.ReclaimSpaceCronJobSpec;
import io.thinvol.api.v1alpha1.ReclaimSpaceJob;
import io.thinvol.api.v1alpha1.ReclaimSpaceJobSpec;
import io.thinvol.api.v1alpha1.ReclaimSpaceJobTemplate;
import io.thinvol.api.v1alpha1.ReclaimTarget;
import io.thinvol.api.v1alpha1.TemplateMetadata;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Cron jobs with a clock the test moves: each move is followed by a touch on the object, which
 * makes the reconciler look at the clock again (the real one would wake on its own timer).
 */
class ReclaimSpaceCronJobTest extends AddonsClusterTest {

  private final FakeDriver driver = new FakeDriver();
  private final MutableClock clock = new MutableClock(Instant.now());
  private final Instant firstRun =
      Instant.now().truncatedTo(ChronoUnit.HOURS).plus(Duration.ofHours(1));

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
    return Duration.ZERO; // runs exactly on the hour, so the test knows the job names
  }

  @BeforeEach
  void cluster() {
    backend(1, "10m");
    driverPod("node-a", "10.0.0.1", 9070);
    boundClaim("data", "vol-1", "node-a");
  }

  @AfterEach
  void closeDriver() {
    driver.close();
  }

  @Test
  void eachRunCreatesAJobNamedByItsTimeAndOwnedByTheCronJob() {
    cronJob("hourly", spec -> {});
    await(
        "the next run in the status",
        () ->
            status("hourly") != null
                && firstRun.toString().equals(status("hourly").getNextScheduleTime()));
    assertThat(jobs()).isEmpty();

    clock.set(firstRun.plusSeconds(5));
    poke("hourly");

    ReclaimSpaceJob job = awaitJob("hourly-" + firstRun.getEpochSecond());
    assertThat(job.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(
            owner -> {
              assertThat(owner.getKind()).isEqualTo("ReclaimSpaceCronJob");
              assertThat(owner.getName()).isEqualTo("hourly");
              assertThat(owner.getController()).isTrue();
              // admitted by OwnerReferencesPermissionEnforcement for the operator's account
              assertThat(owner.getBlockOwnerDeletion()).isTrue();
            });
    assertThat(job.getMetadata().getLabels()).containsEntry("team", "storage");
    assertThat(job.getMetadata().getAnnotations())
        .containsEntry("reclaimspace.thinvol.io/scheduled-at", firstRun.toString());
    assertThat(job.getSpec().getTarget().getPersistentVolumeClaim()).isEqualTo("data");
    awaitResult(job.getMetadata().getName());
    ReclaimSpaceCronJob cron =
        await(
            "the success in the cron job's status",
            () -> {
              ReclaimSpaceCronJob now = cron("hourly");
              return now.getStatus().getLastSuccessfulTime() != null
                      && now.getStatus().getActive() == null
                  ? now
                  : null;
            });
    assertThat(cron.getStatus().getLastScheduleTime()).isEqualTo(firstRun.toString());
    assertThat(cron.getStatus().getNextScheduleTime())
        .isEqualTo(firstRun.plus(Duration.ofHours(1)).toString());
    assertThat(eventReasons(APPS, "hourly")).contains("SuccessfulCreate");
  }

  @Test
  void forbidWaitsForTheRunningJobAndReplaceDeletesIt() {
    driver.fallback(Answer.hanging()); // the first job's call never ends on its own
    cronJob("busy", spec -> spec.setConcurrencyPolicy(ConcurrencyPolicy.Forbid));
    clock.set(firstRun.plusSeconds(5));
    poke("busy");
    String first = "busy-" + firstRun.getEpochSecond();
    awaitJob(first);

    Instant secondRun = firstRun.plus(Duration.ofHours(1));
    clock.set(secondRun.plusSeconds(5));
    poke("busy");
    await("RunWaiting", () -> eventReasons(APPS, "busy").contains("RunWaiting"));
    assertThat(jobs()).extracting(j -> j.getMetadata().getName()).containsExactly(first);
    assertThat(status("busy").getActive().getName()).isEqualTo(first);

    merge("busy", "{\"spec\":{\"concurrencyPolicy\":\"Replace\"}}");

    String second = "busy-" + secondRun.getEpochSecond();
    awaitJob(second);
    await(
        "the first job deleted",
        () -> jobs().stream().noneMatch(j -> j.getMetadata().getName().equals(first)));
    // The Event follows the deletion: wait for it rather than race it.
    await("a Replaced Event", () -> eventReasons(APPS, "busy").contains("Replaced"));
  }

  @Test
  void suspendStopsRunsAndAStartingDeadlineSkipsLateOnes() {
    cronJob("paused", spec -> spec.setSuspend(true));
    clock.set(firstRun.plusSeconds(5));
    poke("paused");
    await(
        "no next run while suspended",
        () ->
            status("paused") != null
                && status("paused").getNextScheduleTime() == null
                && status("paused").getObservedGeneration() != null);
    sleepBriefly();
    assertThat(jobs()).isEmpty();

    clock.set(firstRun.plus(Duration.ofMinutes(5)));
    merge("paused", "{\"spec\":{\"suspend\":false,\"startingDeadlineSeconds\":60}}");
    await("MissedSchedule", () -> eventReasons(APPS, "paused").contains("MissedSchedule"));
    assertThat(jobs()).isEmpty();

    Instant secondRun = firstRun.plus(Duration.ofHours(1));
    clock.set(secondRun.plusSeconds(10));
    poke("paused");
    awaitJob("paused-" + secondRun.getEpochSecond());
  }

  @Test
  void historyLimitsKeepTheNewestJobsOfEachResult() {
    cronJob(
        "kept",
        spec -> {
          spec.setSuccessfulJobsHistoryLimit(2);
          spec.setFailedJobsHistoryLimit(1);
        });
    Instant run = firstRun;
    for (int i = 0; i < 4; i++) {
      runOnce("kept", run);
      run = run.plus(Duration.ofHours(1));
    }
    driver.fallback(Answer.fail(Status.Code.NOT_FOUND, "volume vol-1 does not exist"));
    for (int i = 0; i < 2; i++) {
      runOnce("kept", run);
      run = run.plus(Duration.ofHours(1));
    }
    clock.set(run.minusSeconds(1800)); // no run due: this touch only tidies up
    poke("kept");

    Instant last = run.minus(Duration.ofHours(1));
    await(
        "the history trimmed",
        () ->
            jobs().stream()
                .map(j -> j.getMetadata().getName())
                .sorted()
                .toList()
                .equals(
                    List.of(
                        "kept-" + last.minus(Duration.ofHours(3)).getEpochSecond(),
                        "kept-" + last.minus(Duration.ofHours(2)).getEpochSecond(),
                        "kept-" + last.getEpochSecond())));
  }

  @Test
  void anInvalidScheduleIsReportedNotRun() {
    cluster.createUnvalidated(cronJobObject("broken", spec -> spec.setSchedule("every night")));

    ReclaimSpaceCronJob cron =
        await(
            "ScheduleValid=False",
            () -> {
              ReclaimSpaceCronJob now = cron("broken");
              return now.getStatus() != null
                      && Conditions.find(now.getStatus().getConditions(), "ScheduleValid")
                          .filter(c -> "False".equals(c.getStatus()))
                          .isPresent()
                  ? now
                  : null;
            });
    assertThat(
            Conditions.find(cron.getStatus().getConditions(), "ScheduleValid").get().getMessage())
        .isEqualTo(
            "\"every night\" is not 5 cron fields (minute hour day-of-month month day-of-week)");
    await("InvalidSchedule", () -> eventReasons(APPS, "broken").contains("InvalidSchedule"));
  }

  private void runOnce(String name, Instant run) {
    clock.set(run.plusSeconds(5));
    poke(name);
    awaitResult(awaitJob(name + "-" + run.getEpochSecond()).getMetadata().getName());
  }

  private void cronJob(String name, Consumer<ReclaimSpaceCronJobSpec> tweak) {
    client.resource(cronJobObject(name, tweak)).create();
  }

  private static ReclaimSpaceCronJob cronJobObject(
      String name, Consumer<ReclaimSpaceCronJobSpec> tweak) {
    ReclaimSpaceCronJob cron = new ReclaimSpaceCronJob();
    cron.getMetadata().setName(name);
    cron.getMetadata().setNamespace(APPS);
    ReclaimSpaceCronJobSpec spec = new ReclaimSpaceCronJobSpec();
    spec.setSchedule("0 * * * *");
    spec.setConcurrencyPolicy(ConcurrencyPolicy.Forbid);
    spec.setSuccessfulJobsHistoryLimit(3);
    spec.setFailedJobsHistoryLimit(1);
    ReclaimSpaceJobTemplate template = new ReclaimSpaceJobTemplate();
    TemplateMetadata meta = new TemplateMetadata();
    meta.setLabels(Map.of("team", "storage"));
    template.setMetadata(meta);
    ReclaimSpaceJobSpec jobSpec = new ReclaimSpaceJobSpec();
    jobSpec.setTarget(new ReclaimTarget("data"));
    jobSpec.setBackOffLimit(0);
    template.setSpec(jobSpec);
    spec.setJobTemplate(template);
    tweak.accept(spec);
    cron.setSpec(spec);
    return cron;
  }

  /** A change the reconciler sees (it is not generation-aware), so it reads the clock again. */
  private void poke(String name) {
    merge(name, "{\"metadata\":{\"annotations\":{\"test/poke\":\"" + UUID.randomUUID() + "\"}}}");
  }

  private void merge(String name, String patch) {
    merge(ReclaimSpaceCronJob.class, APPS, name, patch);
  }

  private ReclaimSpaceCronJob cron(String name) {
    return client.resources(ReclaimSpaceCronJob.class).inNamespace(APPS).withName(name).get();
  }

  private io.thinvol.api.v1alpha1.ReclaimSpaceCronJobStatus status(String name) {
    ReclaimSpaceCronJob cron = cron(name);
    return cron == null ? null : cron.getStatus();
  }

  private List<ReclaimSpaceJob> jobs() {
    return client.resources(ReclaimSpaceJob.class).inNamespace(APPS).list().getItems();
  }

  private ReclaimSpaceJob awaitJob(String name) {
    return await(
        "job " + name,
        () -> client.resources(ReclaimSpaceJob.class).inNamespace(APPS).withName(name).get());
  }

  private static void sleepBriefly() {
    try {
      Thread.sleep(500);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
