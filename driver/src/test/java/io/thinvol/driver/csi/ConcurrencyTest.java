package io.thinvol.driver.csi;

import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.DeleteVolumeRequest;
import csi.v1.ListVolumesRequest;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.thinvol.driver.DriverHarness;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.host.LoopDevices;
import io.thinvol.driver.host.MountTable;
import io.thinvol.driver.host.ProcessCommandRunner;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Parallel calls: one volume per name, and per-volume operations serialised or ABORTED. */
class ConcurrencyTest {

  private DriverHarness driver;
  private ExecutorService pool;

  @BeforeEach
  void start() throws IOException {
    driver = new DriverHarness();
    pool = Executors.newFixedThreadPool(32);
  }

  @AfterEach
  void stop() throws IOException {
    pool.shutdownNow();
    driver.close();
  }

  /** Runs {@code calls} at once; each result is its value, or the gRPC code it failed with. */
  private List<Object> together(List<Callable<Object>> calls) throws Exception {
    CountDownLatch go = new CountDownLatch(1);
    List<Future<Object>> futures = new ArrayList<>();
    for (Callable<Object> call : calls) {
      futures.add(
          pool.submit(
              () -> {
                go.await();
                try {
                  return call.call();
                } catch (StatusRuntimeException e) {
                  return e.getStatus().getCode();
                }
              }));
    }
    go.countDown();
    List<Object> results = new ArrayList<>();
    for (Future<Object> future : futures) {
      results.add(future.get());
    }
    return results;
  }

  @Test
  @DisplayName("32 parallel CreateVolume calls with one name give exactly one volume")
  void oneVolumePerName() throws Exception {
    List<Callable<Object>> calls = new ArrayList<>();
    for (int i = 0; i < 32; i++) {
      calls.add(() -> driver.create("contended", 32 << 20, Capabilities.block()));
    }
    List<Object> results = together(calls);
    assertThat(results).doesNotContain(Status.Code.INTERNAL, Status.Code.ALREADY_EXISTS);
    assertThat(results.stream().filter(String.class::isInstance).distinct()).hasSize(1);
    assertThat(
            driver
                .csi()
                .controller()
                .listVolumes(ListVolumesRequest.getDefaultInstance())
                .getEntriesCount())
        .isEqualTo(1);
    try (var dirs = java.nio.file.Files.list(driver.dataDir().resolve("volumes"))) {
      assertThat(dirs).hasSize(1);
    }
  }

  @Test
  @DisplayName("Parallel stages of one volume: each OK or ABORTED, one mount, one loop device")
  void parallelStages() throws Exception {
    String id = driver.create("staged", 64 << 20, Capabilities.mount("ext4"));
    Path staging = driver.staging("s");
    List<Callable<Object>> calls = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      calls.add(
          () -> {
            driver.stage(id, staging, Capabilities.mount("ext4"));
            return "ok";
          });
    }
    List<Object> results = together(calls);
    assertThat(results).containsOnly("ok", Status.Code.ABORTED).contains("ok");
    assertThat(MountTable.read().under(staging)).hasSize(1);
    Path image = driver.dataDir().resolve("volumes").resolve(id).resolve("disk.img");
    assertThat(new LoopDevices(new ProcessCommandRunner()).of(image)).hasSize(1);

    List<Callable<Object>> publishes = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      Path target = driver.target("p" + i);
      publishes.add(
          () -> {
            driver.publish(id, staging, target, Capabilities.mount("ext4"), false);
            return target.toString();
          });
    }
    List<Object> published = together(publishes);
    assertThat(published).doesNotContain(Status.Code.INTERNAL, Status.Code.ALREADY_EXISTS);
    for (Object target : published) {
      if (target instanceof String path) {
        assertThat(MountTable.read().at(Path.of(path))).isPresent();
        driver.unpublish(id, Path.of(path));
      }
    }
    driver.unstage(id, staging);
  }

  @Test
  @DisplayName("Unstage racing delete: never deleted while attached, consistent at the end")
  void unstageRacingDelete() throws Exception {
    String id = driver.create("racing", 64 << 20, Capabilities.mount("xfs"));
    Path staging = driver.staging("r");
    driver.stage(
        id,
        staging,
        Capabilities.mount("ext4").toBuilder()
            .setMount(Capabilities.mount("xfs").getMount())
            .build());
    List<Object> results =
        together(
            List.of(
                () -> {
                  driver.unstage(id, staging);
                  return "unstaged";
                },
                () -> {
                  driver
                      .csi()
                      .controller()
                      .deleteVolume(DeleteVolumeRequest.newBuilder().setVolumeId(id).build());
                  return "deleted";
                }));
    assertThat(results.get(0)).isIn("unstaged", Status.Code.ABORTED);
    assertThat(results.get(1))
        .isIn("deleted", Status.Code.ABORTED, Status.Code.FAILED_PRECONDITION);
    if (!"unstaged".equals(results.get(0))) {
      driver.unstage(id, staging);
    }
    driver
        .csi()
        .controller()
        .deleteVolume(DeleteVolumeRequest.newBuilder().setVolumeId(id).build());
    assertThat(
            driver
                .csi()
                .controller()
                .listVolumes(ListVolumesRequest.getDefaultInstance())
                .getEntriesCount())
        .isZero();
    assertThat(MountTable.read().under(driver.root())).isEmpty();
  }

  @Test
  @DisplayName("Different volumes do not wait for each other")
  void independentVolumes() throws Exception {
    List<Callable<Object>> calls = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      String name = "independent-" + i;
      calls.add(() -> driver.create(name, 16 << 20, Capabilities.block()));
    }
    assertThat(together(calls)).allMatch(String.class::isInstance).doesNotHaveDuplicates();
  }
}
