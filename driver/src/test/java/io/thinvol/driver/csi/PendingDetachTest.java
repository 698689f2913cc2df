package io.thinvol.driver.csi;

import static io.thinvol.driver.GrpcAssertions.assertCode;
import static io.thinvol.driver.GrpcAssertions.message;
import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.DeleteVolumeRequest;
import csi.v1.VolumeCapability;
import io.grpc.Status;
import io.thinvol.driver.DriverHarness;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.host.LoopDevice;
import io.thinvol.driver.host.LoopDevices;
import io.thinvol.driver.host.MountTable;
import io.thinvol.driver.host.ProcessCommandRunner;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A loop device someone else still has open when the driver detaches it (udev's probe after the
 * unmount, as under load): the kernel only marks it for autoclear and unbinds it at the last close.
 * The test holds the device open as that prober would.
 */
class PendingDetachTest {

  private static final long MIB = 1L << 20;
  private static final long RELEASE_AFTER_MILLIS = 300;
  private static final VolumeCapability EXT4 = Capabilities.mount("ext4");

  private final LoopDevices loops = new LoopDevices(new ProcessCommandRunner());
  private DriverHarness driver;
  private FileChannel holder;

  @BeforeEach
  void start() throws IOException {
    driver = new DriverHarness();
  }

  @AfterEach
  void stop() throws IOException {
    try {
      if (holder != null) {
        holder.close();
      }
    } finally {
      driver.close();
    }
  }

  @Test
  void unstageReturnsOnlyOnceTheDeviceIsGoneSoAnImmediateDeleteSucceeds() throws Exception {
    String id = stagedVolume();
    LoopDevice device = loops.find(image(id)).orElseThrow();
    holder = FileChannel.open(device.path(), StandardOpenOption.READ);
    AtomicLong releasing = new AtomicLong();
    releaseLater(releasing);

    unstage(id);
    long unstagedAt = System.nanoTime();
    delete(id); // right away, as the CO does: refused while the device still backs the image

    assertThat(releasing.get())
        .as("the opener started closing before NodeUnstage answered")
        .isPositive()
        .isLessThan(unstagedAt);
  }

  @Test
  void aDeviceHeldPastTheBoundIsNamedAndARetryAfterTheReleaseSucceeds() throws Exception {
    String id = stagedVolume();
    LoopDevice device = loops.find(image(id)).orElseThrow();
    holder = FileChannel.open(device.path(), StandardOpenOption.READ);

    long before = System.nanoTime();
    String refused = message(assertCode(Status.Code.FAILED_PRECONDITION, () -> unstage(id)));
    assertThat(System.nanoTime() - before)
        .isGreaterThanOrEqualTo(LoopDevices.DETACH_WAIT.toNanos());
    assertThat(refused)
        .contains(
            id, "unmounted", device.path().toString(), "PID " + ProcessHandle.current().pid());
    assertThat(MountTable.read().at(driver.staging("v"))).isEmpty();
    assertThat(message(assertCode(Status.Code.FAILED_PRECONDITION, () -> delete(id))))
        .contains(device.path().toString(), "still attached");

    holder.close();
    unstage(id);
    assertThat(loops.find(image(id))).isEmpty();
    delete(id);
  }

  @Test
  void deleteWaitsForADetachLeftPendingByAnEarlierUnstage() throws Exception {
    String id = stagedVolume();
    LoopDevice device = loops.find(image(id)).orElseThrow();
    holder = FileChannel.open(device.path(), StandardOpenOption.READ);
    assertCode(Status.Code.FAILED_PRECONDITION, () -> unstage(id));
    assertThat(loops.detaching(device)).as("marked for autoclear").isTrue();

    releaseLater(new AtomicLong());
    delete(id); // right away: the device is still attached, the delete waits for it to go

    assertThat(loops.find(image(id))).isEmpty();
  }

  private String stagedVolume() {
    String id = driver.create("held", 64 * MIB, EXT4);
    driver.stage(id, driver.staging("v"), EXT4);
    return id;
  }

  /**
   * Closes the holder from another thread after a moment, as udev's probe ends; {@code releasing}
   * gets the time the close began.
   */
  private void releaseLater(AtomicLong releasing) {
    FileChannel held = holder;
    CompletableFuture.runAsync(
        () -> {
          try {
            releasing.set(System.nanoTime());
            held.close();
          } catch (IOException e) {
            throw new IllegalStateException(e);
          }
        },
        CompletableFuture.delayedExecutor(RELEASE_AFTER_MILLIS, TimeUnit.MILLISECONDS));
  }

  private void unstage(String id) {
    driver.unstage(id, driver.staging("v"));
  }

  private void delete(String id) {
    driver
        .csi()
        .controller()
        .deleteVolume(DeleteVolumeRequest.newBuilder().setVolumeId(id).build());
  }

  private Path image(String id) {
    return driver.dataDir().resolve("volumes").resolve(id).resolve("disk.img");
  }
}
