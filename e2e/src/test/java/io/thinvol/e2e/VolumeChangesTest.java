package io.thinvol.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.thinvol.e2e.support.Claims;
import io.thinvol.e2e.support.Host;
import io.thinvol.e2e.support.Names;
import io.thinvol.e2e.support.NodePods;
import io.thinvol.e2e.support.Waits;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/** A claim grown, its I/O mode changed, and a raw block volume. */
@Order(5)
class VolumeChangesTest extends E2eSteps {

  private static final Duration RESIZE_LIMIT = Duration.ofMinutes(3);

  @Test
  @Order(1)
  @DisplayName("expansion (ext4 online where CAP_SYS_RESOURCE is held, else offline; xfs online)")
  void expansion() {
    world().require("data.handle");
    boolean online = NodePods.driverHolds(client(), NodePods.CAP_SYS_RESOURCE);
    long start = System.nanoTime();
    int starts = 0;
    if (!online) {
      pods().delete(ReclaimTest.WRITER);
    }
    resize(ReclaimTest.DATA, "2Gi");
    if (!online) {
      Waits.untilTrue(
          "the volume of claim data to be grown to 2Gi (offline: FileSystemResizePending)",
          RESIZE_LIMIT,
          () ->
              claims()
                  .awaitVolume(ReclaimTest.DATA)
                  .getSpec()
                  .getCapacity()
                  .get("storage")
                  .equals(new Quantity("2Gi")));
      starts = startUntilGrown(ReclaimTest.DATA, ReclaimTest.WRITER, 2L << 30);
    }
    awaitCapacity(ReclaimTest.DATA, 2L << 30);
    long size = filesystemBytes(ReclaimTest.WRITER, "/data");
    assertThat(size).isGreaterThan(1900 * MIB);
    assertThat(pods().sha256(ReclaimTest.WRITER, ReclaimTest.KEEP))
        .isEqualTo(world().require("data.keep.sha256"));
    kube()
        .awaitEvent(
            "PersistentVolumeClaim",
            Names.APPS,
            ReclaimTest.DATA,
            "FileSystemResizeSuccessful",
            Duration.ofSeconds(30));
    String ext4 =
        (online ? "online" : "offline (CAP_SYS_RESOURCE withheld), grown at pod start " + starts)
            + ": ext4 1Gi -> 2Gi in "
            + seconds(start)
            + ", df "
            + size
            + " B";

    claims().create("xfs-data", Claims.Spec.filesystem(Names.XFS_CLASS, "400Mi"));
    pods().mounting("xfs-writer", Map.of("xfs-data", "/data"));
    pods().sh("xfs-writer", "dd if=/dev/urandom of=/data/file bs=1M count=8 2>/dev/null && sync");
    String xfsSum = pods().sha256("xfs-writer", "/data/file");
    start = System.nanoTime();
    resize("xfs-data", "800Mi");
    awaitCapacity("xfs-data", 800 * MIB);
    long xfsSize = filesystemBytes("xfs-writer", "/data");
    assertThat(xfsSize).isGreaterThan(700 * MIB);
    assertThat(pods().sha256("xfs-writer", "/data/file")).isEqualTo(xfsSum);
    pods().delete("xfs-writer");
    kube().describe("persistentvolumeclaim", Names.APPS, ReclaimTest.DATA);
    figure(ext4 + "; online xfs 400Mi -> 800Mi in " + seconds(start) + ", df " + xfsSize + " B");
  }

  @Test
  @Order(2)
  @DisplayName("ModifyVolume through a VolumeAttributesClass")
  void modify() {
    Path image = Names.image(world().require("data.handle"));
    assertThat(Host.loopsOf(image))
        .as("the staged data volume's loop device, direct I/O (the default)")
        .singleElement()
        .matches(Host.Loop::directIo);
    long start = System.nanoTime();
    kube()
        .apply(
            "volumeattributesclass.yaml",
            vars("name", "e2e-buffered", "driver", Names.DRIVER, "ioMode", "buffered"));
    patchClaim(
        ReclaimTest.DATA, Map.of("spec", Map.of("volumeAttributesClassName", "e2e-buffered")));
    Waits.untilTrue(
        "claim data's currentVolumeAttributesClassName to be e2e-buffered",
        RESIZE_LIMIT,
        () ->
            "e2e-buffered"
                .equals(
                    claims()
                        .get(ReclaimTest.DATA)
                        .getStatus()
                        .getCurrentVolumeAttributesClassName()));
    kube()
        .awaitEvent(
            "PersistentVolumeClaim",
            Names.APPS,
            ReclaimTest.DATA,
            "VolumeModifySuccessful",
            Duration.ofSeconds(30));
    List<Host.Loop> loops = Host.loopsOf(image);
    assertThat(loops).singleElement().matches(l -> !l.directIo(), "buffered I/O");
    assertThat(pods().sha256(ReclaimTest.WRITER, ReclaimTest.KEEP))
        .isEqualTo(world().require("data.keep.sha256"));
    figure(
        "ioMode direct -> buffered in "
            + seconds(start)
            + " with the pod running; loop "
            + loops.get(0).device()
            + " dio=0");
  }

  @Test
  @Order(3)
  @DisplayName("block volume")
  void block() {
    requireBackend();
    claims().create("raw", Claims.Spec.filesystem(Names.EXT4_CLASS, "64Mi").block());
    Pod pod = pods().withDevice("raw-user", "raw", "/dev/e2e-raw");
    String written =
        pods()
            .sh(
                "raw-user",
                "dd if=/dev/urandom of=/tmp/x bs=1M count=16 2>/dev/null && dd if=/tmp/x of=/dev/e2e-raw bs=1M conv=fsync 2>/dev/null && sha256sum /tmp/x")
            .split("\\s+")[0];
    String read =
        pods()
            .sh("raw-user", "dd if=/dev/e2e-raw bs=1M count=16 2>/dev/null | sha256sum")
            .split("\\s+")[0];
    assertThat(read).isEqualTo(written);
    Path image = Names.image(claims().volumeHandle("raw"));
    assertThat(Host.loopsOf(image)).as("the block volume's loop device").hasSize(1);
    pods().delete(pod.getMetadata().getName());
    figure(
        "16 MiB written to the raw device and read back, sha256 equal; image "
            + Host.allocatedBytes(image)
            + " B");
  }

  /**
   * Starts the claim's pod until the claim has grown: the kubelet stages the volume and asks the
   * node to grow it; where that fails online (the driver lacks CAP_SYS_RESOURCE), the driver grows
   * the filesystem offline at the next stage (docs/driver.md), i.e. at the next pod start. The
   * number of pod starts it took.
   */
  private static int startUntilGrown(String claim, String pod, long bytes) {
    for (int start = 1; ; start++) {
      pods().mounting(pod, Map.of(claim, "/data"));
      boolean grown =
          Waits.until(
              "claim " + claim + " to grow or its node expansion to fail",
              RESIZE_LIMIT,
              () -> {
                if (claims().capacity(claim) >= bytes) {
                  return Optional.of(true);
                }
                return claims().get(claim).getStatus().getConditions().stream()
                        .anyMatch(c -> "NodeResizeError".equals(c.getType()))
                    ? Optional.of(false)
                    : Optional.empty();
              });
      if (grown || start == 2) {
        return start;
      }
      pods().delete(pod);
    }
  }

  private static void resize(String claim, String size) {
    patchClaim(
        claim, Map.of("spec", Map.of("resources", Map.of("requests", Map.of("storage", size)))));
  }

  private static void awaitCapacity(String claim, long bytes) {
    Waits.until(
        "claim " + claim + "'s capacity to reach " + bytes + " B",
        RESIZE_LIMIT,
        () -> Optional.of(claims().capacity(claim)).filter(c -> c >= bytes),
        () -> claims().get(claim).getStatus());
  }

  /** The size of the filesystem mounted at {@code path} in the pod, as {@code df} reports it. */
  private static long filesystemBytes(String pod, String path) {
    String[] line = pods().sh(pod, "df -k " + path + " | tail -n 1").trim().split("\\s+");
    return Long.parseLong(line[1]) * 1024;
  }
}
