package io.thinvol.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Quantity;
import io.thinvol.e2e.support.Claims;
import io.thinvol.e2e.support.Host;
import io.thinvol.e2e.support.Names;
import io.thinvol.e2e.support.Resources;
import io.thinvol.e2e.support.Waits;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * A claim written and emptied again, and its space given back three ways (docs/reclaim-space.md).
 */
@Order(3)
class ReclaimTest extends E2eSteps {

  static final String DATA = "data";
  static final String WRITER = "writer";
  static final String KEEP = "/data/keep";
  private static final int KEEP_MIB = 56;
  private static final int SCRATCH_MIB = 200;
  // ext4's journal and metadata may change between the host's du and the driver's own measure.
  private static final long TOLERANCE = 2 * MIB;
  private static final Duration JOB_LIMIT = Duration.ofMinutes(2);
  private static final Duration SCHEDULE_LIMIT = Duration.ofMinutes(3);
  static final String SCHEDULE_ANNOTATION = "reclaimspace.thinvol.io/schedule";

  @Test
  @Order(1)
  @DisplayName("PVC + pod writing data")
  void write() {
    requireBackend();
    claims().create(DATA, Claims.Spec.filesystem(Names.EXT4_CLASS, "1Gi"));
    pods().mounting(WRITER, Map.of(DATA, "/data"));
    pods()
        .sh(
            WRITER,
            "dd if=/dev/urandom of="
                + KEEP
                + " bs=1M count="
                + KEEP_MIB
                + " 2>/dev/null"
                + " && dd if=/dev/urandom of=/data/scratch bs=1M count="
                + SCRATCH_MIB
                + " 2>/dev/null && sync");
    world().remember("data.keep.sha256", pods().sha256(WRITER, KEEP));
    String handle = claims().volumeHandle(DATA);
    world().remember("data.handle", handle);
    long allocated = Host.allocatedBytes(Names.image(handle));
    assertThat(allocated).isGreaterThanOrEqualTo((KEEP_MIB + SCRATCH_MIB) * MIB);
    kube()
        .awaitEvent(
            "PersistentVolumeClaim",
            Names.APPS,
            DATA,
            "ProvisioningSucceeded",
            Duration.ofSeconds(30));
    figure(
        (KEEP_MIB + SCRATCH_MIB)
            + " MiB written; the image allocates "
            + allocated
            + " B on the host (du)");
  }

  @Test
  @Order(2)
  @DisplayName("ReclaimSpaceJob: bytes reported = the image's allocation change on the host")
  void job() {
    Path image = Names.image(world().require("data.handle"));
    pods().sh(WRITER, "rm /data/scratch && sync");
    long before = Host.allocatedBytes(image);
    kube().apply("reclaimspacejob.yaml", vars("name", "trim-data", "claim", DATA));
    GenericKubernetesResource job =
        Waits.until(
            "ReclaimSpaceJob trim-data to end",
            JOB_LIMIT,
            () ->
                Optional.ofNullable(get(Resources.RECLAIM_SPACE_JOB, Names.APPS, "trim-data"))
                    .filter(j -> field(j, "status", "result").isPresent()),
            () ->
                field(get(Resources.RECLAIM_SPACE_JOB, Names.APPS, "trim-data"), "status")
                    .orElse("no status"));
    long after = Host.allocatedBytes(image);
    assertThat(field(job, "status", "result")).contains("Succeeded");
    long reclaimed = bytes(job, "reclaimedSpace");
    long pre = bytes(job, "preUsage");
    long post = bytes(job, "postUsage");
    assertThat(reclaimed).isEqualTo(pre - post).isGreaterThan((SCRATCH_MIB - 10) * MIB);
    assertThat(pre).isCloseTo(before, offset(TOLERANCE));
    assertThat(post).isCloseTo(after, offset(TOLERANCE));
    assertThat(reclaimed).isCloseTo(before - after, offset(TOLERANCE));
    kube()
        .awaitEvent("ReclaimSpaceJob", Names.APPS, "trim-data", "Started", Duration.ofSeconds(30));
    Event succeeded =
        kube()
            .awaitEvent(
                "ReclaimSpaceJob", Names.APPS, "trim-data", "Succeeded", Duration.ofSeconds(30));
    kube().describe("reclaimspacejob", Names.APPS, "trim-data");
    figure(
        "reported "
            + mib(reclaimed)
            + " (pre "
            + pre
            + ", post "
            + post
            + "); host du "
            + before
            + " -> "
            + after
            + " B ("
            + mib(before - after)
            + "); Event Succeeded: "
            + succeeded.getMessage());
  }

  @Test
  @Order(3)
  @DisplayName("ReclaimSpaceCronJob and an annotation schedule")
  void schedules() {
    world().require("data.handle");
    long start = System.nanoTime();
    kube()
        .apply(
            "reclaimspacecronjob.yaml",
            vars("name", "minutely", "claim", DATA, "schedule", "* * * * *"));
    annotateClaim(DATA, SCHEDULE_ANNOTATION, "@every 1m");
    Map<String, String> firstRuns = new ConcurrentHashMap<>();
    try {
      Waits.untilTrue(
          "a successful run of the minutely ReclaimSpaceCronJob and a SpaceReclaimed Event of the"
              + " claim's annotation schedule",
          SCHEDULE_LIMIT,
          () -> {
            if (field(
                    get(Resources.RECLAIM_SPACE_CRON_JOB, Names.APPS, "minutely"),
                    "status",
                    "lastSuccessfulTime")
                .isPresent()) {
              firstRuns.putIfAbsent("cron job", seconds(start));
            }
            if (kube().events("PersistentVolumeClaim", Names.APPS, DATA).stream()
                .anyMatch(e -> "SpaceReclaimed".equals(e.getReason()))) {
              firstRuns.putIfAbsent("annotation", seconds(start));
            }
            return firstRuns.size() == 2;
          });
    } finally {
      figure("first successful runs after: " + firstRuns);
    }
    kube()
        .awaitEvent(
            "ReclaimSpaceCronJob",
            Names.APPS,
            "minutely",
            "SuccessfulCreate",
            Duration.ofSeconds(30));
    assertThat(claims().get(DATA).getMetadata().getAnnotations())
        .containsKey("reclaimspace.thinvol.io/last-scheduled-run");
    kube().describe("reclaimspacecronjob", Names.APPS, "minutely");
    kube().describe("persistentvolumeclaim", Names.APPS, DATA);

    Resources.of(client(), Resources.RECLAIM_SPACE_CRON_JOB)
        .inNamespace(Names.APPS)
        .withName("minutely")
        .delete();
    annotateClaim(DATA, SCHEDULE_ANNOTATION, null);
  }

  private static long bytes(GenericKubernetesResource job, String field) {
    return Quantity.getAmountInBytes(
            new Quantity(String.valueOf(field(job, "status", field).orElseThrow())))
        .longValueExact();
  }

  static String mib(long bytes) {
    return String.format(Locale.ROOT, "%.1f MiB", bytes / (double) MIB);
  }
}
