package io.thinvol.addons;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.grpc.Status;
import io.thinvol.addons.FakeDriver.Answer;
import io.thinvol.addons.call.ReclaimCaller;
import io.thinvol.addons.call.ReclaimService;
import io.thinvol.api.kube.Conditions;
import io.thinvol.api.v1alpha1.ReclaimMode;
import io.thinvol.api.v1alpha1.ReclaimSpaceJob;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** ReclaimSpaceJobs against a scripted driver: what a person reads in the status for each path. */
class ReclaimSpaceJobTest extends AddonsClusterTest {

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
  void aTrimOnTheNodeSucceedsWithTheBytesTheDriverReported() {
    boundClaim("data", "vol-1", "node-a");
    driver.script("vol-1", Answer.ok(300L << 20, 44L << 20));

    ReclaimSpaceJob job = awaitResult(job("trim", "data", s -> {}).getMetadata().getName());

    assertThat(job.getStatus().getResult()).isEqualTo("Succeeded");
    assertThat(job.getStatus().getReclaimedSpace().toString()).isEqualTo("256Mi");
    assertThat(job.getStatus().getPreUsage().toString()).isEqualTo("300Mi");
    assertThat(job.getStatus().getPostUsage().toString()).isEqualTo("44Mi");
    assertThat(job.getStatus().getMessage()).isEqualTo("reclaimed 256Mi on node node-a");
    assertThat(job.getStatus().getNodeName()).isEqualTo("node-a");
    assertThat(job.getStatus().getSteps().getNode().getResult()).isEqualTo("Succeeded");
    assertThat(job.getStatus().getSteps().getController()).isNull();
    assertThat(job.getStatus().getRetries()).isZero();
    assertThat(job.getStatus().getStartTime()).isNotNull();
    assertThat(job.getStatus().getCompletionTime()).isNotNull();
    assertCondition(job, "Running", "False", "Completed");
    assertCondition(job, "Succeeded", "True", "Reclaimed");
    assertCondition(job, "Failed", "False", "Reclaimed");
    assertThat(driver.calls("vol-1"))
        .extracting(FakeDriver.Call::service)
        .containsExactly(ReclaimService.NODE);
    assertThat(driver.calls("vol-1").get(0).timeout()).isEqualTo(Duration.ofMinutes(10));
    await("Events", () -> eventReasons(APPS, "trim").size() == 2);
    assertThat(eventReasons(APPS, "trim")).containsExactly("Started", "Succeeded");
    String metrics = addons.metrics().render();
    assertThat(metrics)
        .contains("thinvol_reclaimspace_jobs_total{result=\"Succeeded\",reason=\"Reclaimed\"} 1")
        .contains("thinvol_reclaimspace_reclaimed_bytes_total " + (256L << 20))
        .contains(
            "thinvol_reclaimspace_last_result{namespace=\"apps\",persistentvolumeclaim=\"data\"} 1")
        .contains("thinvol_reclaimspace_calls_in_flight{node=\"node-a\"} 0");
  }

  @Test
  void aVolumeNotStagedIsReclaimedOfflineByTheController() {
    boundClaim("idle", "vol-2", "node-a");
    driver.script(
        "vol-2",
        Answer.fail(Status.Code.FAILED_PRECONDITION, "volume vol-2 is not staged on this node"),
        Answer.ok(100L << 20, 10L << 20));

    ReclaimSpaceJob job = awaitResult(job("offline", "idle", s -> {}).getMetadata().getName());

    assertThat(job.getStatus().getResult()).isEqualTo("Succeeded");
    assertThat(job.getStatus().getReclaimedSpace().toString()).isEqualTo("90Mi");
    assertThat(job.getStatus().getSteps().getNode().getResult()).isEqualTo("Skipped");
    assertThat(job.getStatus().getSteps().getNode().getMessage()).contains("not staged");
    assertThat(job.getStatus().getSteps().getController().getResult()).isEqualTo("Succeeded");
    assertThat(driver.calls("vol-2"))
        .extracting(FakeDriver.Call::service)
        .containsExactly(ReclaimService.NODE, ReclaimService.CONTROLLER);
  }

  @Test
  void controllerOnlyCallsOnlyTheController() {
    boundClaim("only", "vol-3", "node-a");

    awaitResult(
        job("ctl", "only", s -> s.setMode(ReclaimMode.ControllerOnly)).getMetadata().getName());

    assertThat(driver.calls("vol-3"))
        .extracting(FakeDriver.Call::service)
        .containsExactly(ReclaimService.CONTROLLER);
  }

  @Test
  void aMissingClaimFailsAtOnceWithoutRetries() {
    ReclaimSpaceJob job =
        awaitResult(job("nothing", "no-such-claim", s -> {}).getMetadata().getName());

    assertThat(job.getStatus().getResult()).isEqualTo("Failed");
    assertThat(job.getStatus().getMessage())
        .isEqualTo("PersistentVolumeClaim apps/no-such-claim does not exist");
    assertThat(job.getStatus().getRetries()).isZero();
    assertCondition(job, "Failed", "True", "PvcNotFound");
    assertCondition(job, "Running", "False", "PvcNotFound");
    assertThat(driver.calls()).isEmpty();
    await("Events", () -> eventReasons(APPS, "nothing").size() == 2);
    assertThat(eventReasons(APPS, "nothing")).containsExactly("Started", "Failed");
  }

  @Test
  void aPendingClaimIsWaitedForAndReclaimedOnceBound() {
    boundClaim("pending", "vol-4", "node-a");
    setClaimPhase("pending", "Pending");
    driver.script("vol-4", Answer.ok(10L << 20, 4L << 20));

    String name = job("early", "pending", s -> {}).getMetadata().getName();

    ReclaimSpaceJob waiting =
        await(
            "the job to say it waits for the claim",
            () -> {
              ReclaimSpaceJob job =
                  client.resources(ReclaimSpaceJob.class).inNamespace(APPS).withName(name).get();
              return job.getStatus() != null
                      && job.getStatus().getMessage() != null
                      && job.getStatus().getMessage().startsWith("waiting for")
                  ? job
                  : null;
            });
    assertThat(waiting.getStatus().getResult()).isNull();
    assertThat(waiting.getStatus().getMessage())
        .startsWith("waiting for PersistentVolumeClaim apps/pending to be bound (Pending)");
    assertCondition(waiting, "Running", "True", "WaitingForClaim");
    assertThat(driver.calls()).isEmpty();

    setClaimPhase("pending", "Bound");
    ReclaimSpaceJob job = awaitResult(name);

    assertThat(job.getStatus().getResult()).isEqualTo("Succeeded");
    assertThat(job.getStatus().getMessage()).isEqualTo("reclaimed 6Mi on node node-a");
  }

  @Test
  void aClaimStillPendingAtTheRetryDeadlineFailsSayingSo() {
    boundClaim("never", "vol-12", "node-a");
    setClaimPhase("never", "Pending");

    ReclaimSpaceJob job =
        awaitResult(
            job("stuck", "never", s -> s.setRetryDeadlineSeconds(2L)).getMetadata().getName());

    assertThat(job.getStatus().getResult()).isEqualTo("Failed");
    assertCondition(job, "Failed", "True", "DeadlineExceeded");
    assertThat(job.getStatus().getMessage())
        .contains("retryDeadlineSeconds after the start")
        .endsWith("last error: waiting for PersistentVolumeClaim apps/never to be bound (Pending)");
    assertThat(driver.calls()).isEmpty();
  }

  private void setClaimPhase(String claim, String phase) {
    client
        .persistentVolumeClaims()
        .inNamespace(APPS)
        .withName(claim)
        .editStatus(
            c -> {
              c.getStatus().setPhase(phase);
              return c;
            });
  }

  @Test
  void aVolumeOfAnotherDriverIsRefused() {
    boundClaim("foreign", "vol-5", "node-a", "rbd.csi.ceph.com");

    ReclaimSpaceJob job = awaitResult(job("other", "foreign", s -> {}).getMetadata().getName());

    assertThat(job.getStatus().getResult()).isEqualTo("Failed");
    assertThat(job.getStatus().getMessage())
        .isEqualTo(
            "PersistentVolume pv-foreign belongs to CSI driver rbd.csi.ceph.com; thinvol reclaims"
                + " only volumes of its own drivers (<backend>.thinvol.io)");
    assertCondition(job, "Failed", "True", "NotThinvol");
    assertThat(driver.calls()).isEmpty();
  }

  @Test
  void unimplementedEndsTheJobWithoutRetrying() {
    boundClaim("block", "vol-6", "node-a");
    driver.script(
        "vol-6",
        Answer.fail(Status.Code.UNIMPLEMENTED, "volume vol-6 is a block volume"),
        Answer.fail(Status.Code.UNIMPLEMENTED, "block volume vol-6 is attached on this node"));

    ReclaimSpaceJob job = awaitResult(job("blk", "block", s -> {}).getMetadata().getName());

    assertThat(job.getStatus().getResult()).isEqualTo("Failed");
    assertThat(job.getStatus().getMessage())
        .isEqualTo(
            "ControllerReclaimSpace on node node-a failed: the driver cannot reclaim this volume"
                + " (UNIMPLEMENTED): block volume vol-6 is attached on this node");
    assertCondition(job, "Failed", "True", "Unimplemented");
    assertThat(job.getStatus().getRetries()).isZero();
    assertThat(driver.calls("vol-6")).hasSize(2);
  }

  @Test
  void abortedBacksOffForSecondsAndASuccessClearsTheStory() {
    boundClaim("busy", "vol-7", "node-a");
    driver.script(
        "vol-7",
        Answer.fail(Status.Code.ABORTED, "an operation on volume vol-7 is in progress"),
        Answer.fail(Status.Code.ABORTED, "an operation on volume vol-7 is in progress"),
        Answer.ok(2L << 30, 1L << 30));

    ReclaimSpaceJob job =
        awaitResult(
            job("patient", "busy", s -> s.setMode(ReclaimMode.NodeOnly)).getMetadata().getName());

    assertThat(job.getStatus().getResult()).isEqualTo("Succeeded");
    assertThat(job.getStatus().getReclaimedSpace().toString()).isEqualTo("1Gi");
    assertThat(job.getStatus().getRetries()).isEqualTo(2);
    assertCondition(job, "Failed", "False", "Reclaimed");
    List<FakeDriver.Call> calls = driver.calls("vol-7");
    assertThat(calls).hasSize(3);
    // Backoff doubles from the first delay: 1 s, then 2 s (scheduling adds a little).
    assertThat(Duration.between(calls.get(0).at(), calls.get(1).at()))
        .isBetween(FIRST_BACKOFF, FIRST_BACKOFF.plusMillis(900));
    assertThat(Duration.between(calls.get(1).at(), calls.get(2).at()))
        .isBetween(FIRST_BACKOFF.multipliedBy(2), FIRST_BACKOFF.multipliedBy(2).plusMillis(900));
    await("Events", () -> eventReasons(APPS, "patient").size() == 4);
    assertThat(eventReasons(APPS, "patient"))
        .containsExactly("Started", "Retrying", "Retrying", "Succeeded");
  }

  @Test
  void theBackOffLimitCountsRetriesAndZeroMeansNone() {
    boundClaim("stuck", "vol-8", "node-a");
    driver.fallback(Answer.fail(Status.Code.ABORTED, "busy"));

    ReclaimSpaceJob job =
        awaitResult(
            job(
                    "once",
                    "stuck",
                    s -> {
                      s.setBackOffLimit(0);
                      s.setMode(ReclaimMode.NodeOnly);
                    })
                .getMetadata()
                .getName());

    assertThat(job.getStatus().getResult()).isEqualTo("Failed");
    assertThat(job.getStatus().getMessage())
        .isEqualTo(
            "gave up after 1 attempt(s) (backOffLimit 0); last error: NodeReclaimSpace on node"
                + " node-a failed: another operation on this volume is running (ABORTED): busy");
    assertCondition(job, "Failed", "True", "BackoffLimitExceeded");
    assertThat(driver.calls("vol-8")).hasSize(1);
  }

  @Test
  void eachCallIsBoundedByTheBackendTimeout() {
    client
        .resources(io.thinvol.api.v1alpha1.StorageBackend.class)
        .withName(BACKEND)
        .edit(
            b -> {
              b.getSpec().getReclaimSpace().setTimeout("1s");
              return b;
            });
    boundClaim("slow", "vol-9", "node-a");
    driver.fallback(Answer.hanging());

    ReclaimSpaceJob job =
        awaitResult(
            job(
                    "slow",
                    "slow",
                    s -> {
                      s.setBackOffLimit(1);
                      s.setMode(ReclaimMode.NodeOnly);
                    })
                .getMetadata()
                .getName());

    assertThat(job.getStatus().getResult()).isEqualTo("Failed");
    assertThat(job.getStatus().getMessage())
        .contains("gave up after 2 attempt(s)")
        .contains("the call did not finish within its timeout");
    assertThat(driver.calls("vol-9"))
        .extracting(FakeDriver.Call::timeout)
        .containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(1));
    assertThat(elapsed(job))
        .isGreaterThanOrEqualTo(Duration.ofSeconds(3)); // two 1 s calls and a 1 s backoff
  }

  @Test
  void theRetryDeadlineCountsFromTheStart() {
    boundClaim("late", "vol-10", "node-a");
    driver.fallback(Answer.fail(Status.Code.ABORTED, "busy"));

    ReclaimSpaceJob job =
        awaitResult(
            job(
                    "deadline",
                    "late",
                    s -> {
                      s.setRetryDeadlineSeconds(2L);
                      s.setMode(ReclaimMode.NodeOnly);
                    })
                .getMetadata()
                .getName());

    // Attempts at 0 s and 1 s; the next would start at 3 s, past the 2 s deadline.
    assertThat(job.getStatus().getResult()).isEqualTo("Failed");
    assertCondition(job, "Failed", "True", "DeadlineExceeded");
    assertThat(job.getStatus().getMessage()).contains("retryDeadlineSeconds after the start");
    assertThat(driver.calls("vol-10")).hasSize(2);
    assertThat(job.getStatus().getRetries()).isEqualTo(1);
  }

  @Test
  void aMissingDriverPodIsRetriedSecondsApart() {
    boundClaim("orphan", "vol-11", "node-b");

    ReclaimSpaceJob job =
        awaitResult(job("nopod", "orphan", s -> s.setBackOffLimit(2)).getMetadata().getName());

    assertThat(job.getStatus().getResult()).isEqualTo("Failed");
    assertThat(job.getStatus().getMessage())
        .startsWith("gave up after 3 attempt(s)")
        .contains("no driver pod of StorageBackend local runs on node node-b");
    // 1 s + 2 s of backoff between the three attempts
    assertThat(elapsed(job)).isGreaterThanOrEqualTo(Duration.ofSeconds(3));
    await("Events", () -> eventReasons(APPS, "nopod").size() == 4);
    assertThat(eventReasons(APPS, "nopod"))
        .containsExactly("Started", "Retrying", "Retrying", "Failed");
    // Durations as people write them, not PT1S
    assertThat(
            client.v1().events().inNamespace(APPS).list().getItems().stream()
                .filter(e -> "Retrying".equals(e.getReason()))
                .map(e -> e.getMessage().replaceAll(".*; ", "")))
        .containsExactlyInAnyOrder("retry 1 in 1s", "retry 2 in 2s");
  }

  static void assertCondition(ReclaimSpaceJob job, String type, String status, String reason) {
    Condition condition =
        Conditions.find(job.getStatus().getConditions(), type)
            .orElseThrow(() -> new AssertionError("no condition " + type));
    assertThat(condition.getStatus()).as(type).isEqualTo(status);
    assertThat(condition.getReason()).as(type + " reason").isEqualTo(reason);
    assertThat(condition.getLastTransitionTime()).isNotNull();
  }
}
