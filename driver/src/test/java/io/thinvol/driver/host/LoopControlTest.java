package io.thinvol.driver.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thinvol.driver.GatedRunner;
import io.thinvol.driver.store.Catalog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Loop devices attached, resized, switched and detached by ioctls, on real devices. */
class LoopControlTest {

  private static final Path SYS_BLOCK = Path.of("/sys/block");

  private final LoopDevices loops = new LoopDevices(new ProcessCommandRunner());
  private Path root;
  private Path image;

  @BeforeEach
  void createImage() throws Exception {
    root = Files.createTempDirectory("thinvol-loop-control-");
    image = sized(root.resolve("disk.img"), 8 << 20);
  }

  @AfterEach
  void cleanUp() throws Exception {
    List<String> leaked = HostCleanup.release(root);
    Catalog.removeTree(root);
    assertThat(leaked).as("left behind").isEmpty();
  }

  @Test
  void attachesReadWriteAndReadOnlyWithoutAutoclearAsLosetupDoes() throws Exception {
    LoopDevice device = loops.attach(image);
    LoopDevice readOnly = loops.attachReadOnly(image, IoMode.BUFFERED);
    assertThat(device.path()).isNotEqualTo(readOnly.path());
    assertThat(device.readOnly()).isFalse();
    assertThat(readOnly.readOnly()).isTrue();
    assertThat(sys(device, "loop/autoclear")).isEqualTo("0");
    assertThat(sys(device, "loop/backing_file")).isEqualTo(image.toString());
    assertThat(loops.sizeBytes(device)).isEqualTo(8 << 20);
    assertThatThrownBy(() -> Files.write(readOnly.path(), new byte[512]))
        .as("the kernel refuses writes through the read-only device");

    loops.detach(readOnly);
    loops.detach(device);
    assertThat(loops.of(image)).isEmpty();
  }

  @Test
  void kernelsWithoutLoopConfigureGetTheFileBoundThenDescribed() throws Exception {
    Path node = LoopControl.attach(image, true, false, false);
    LoopDevice device = loops.findReadOnly(image).orElseThrow();
    assertThat(device.path()).isEqualTo(node);
    assertThat(sys(device, "loop/backing_file")).isEqualTo(image.toString());
    loops.detach(device);
  }

  @Test
  void concurrentAttachesRaceForFreeDevicesAndEachGetsItsOwn() throws Exception {
    List<Path> images = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      images.add(sized(root.resolve("disk-" + i + ".img"), 1 << 20));
    }
    ExecutorService threads = Executors.newFixedThreadPool(images.size());
    try {
      List<CompletableFuture<LoopDevice>> attaching =
          images.stream()
              .map(file -> CompletableFuture.supplyAsync(() -> loops.attach(file), threads))
              .toList();
      List<LoopDevice> devices = attaching.stream().map(CompletableFuture::join).toList();
      assertThat(devices.stream().map(LoopDevice::path))
          .doesNotHaveDuplicates()
          .hasSize(images.size());
      for (Path file : images) {
        assertThat(loops.of(file)).hasSize(1);
      }
      devices.forEach(loops::detach);
    } finally {
      threads.shutdown();
    }
  }

  @Test
  void aGrownImageIsSeenAfterRefreshingTheDevice() throws Exception {
    LoopDevice device = loops.attach(image);
    sized(image, 16 << 20);
    assertThat(loops.sizeBytes(device)).isEqualTo(8 << 20);
    loops.refreshSize(device);
    assertThat(loops.sizeBytes(device)).isEqualTo(16 << 20);
    loops.detach(device);
  }

  @Test
  void aDirectIoDeviceIsBoundDirectNotSwitchedAfterwards() throws Exception {
    GatedRunner watched = new GatedRunner("nothing-held");
    LoopDevice device = new LoopDevices(watched).attach(image, IoMode.DIRECT);
    assertThat(sys(device, "loop/dio")).isEqualTo("1");
    assertThat(sys(device, "queue/logical_block_size"))
        .as("the sector size the volume's filesystem was made with, whatever the backing disk's")
        .isEqualTo("512");
    assertThat(watched.finished())
        .as("one LOOP_CONFIGURE; a LOOP_SET_DIRECT_IO after it freezes the queue (~15 ms)")
        .containsExactly(List.of("LOOP_CONFIGURE", "--direct-io", image.toString()));
    loops.detach(device);
  }

  @Test
  void kernelsWithoutLoopConfigureBindBufferedForTheCallerToSwitch() throws Exception {
    Path node = LoopControl.attach(image, false, true, false);
    LoopDevice device = loops.find(image).orElseThrow();
    assertThat(device.path()).isEqualTo(node);
    assertThat(loops.ioMode(device)).isEqualTo(IoMode.BUFFERED);
    loops.detach(device);
  }

  @Test
  void directIoIsSwitchedOnAndOff() throws Exception {
    LoopDevice device = loops.attach(image);
    assertThat(sys(device, "loop/dio")).isEqualTo("0");
    loops.setIoMode(device, IoMode.DIRECT);
    assertThat(sys(device, "loop/dio")).isEqualTo("1");
    loops.setIoMode(device, IoMode.BUFFERED);
    assertThat(sys(device, "loop/dio")).isEqualTo("0");
    loops.detach(device);
  }

  @Test
  void aMissingImageIsNamedInTheError() {
    Path missing = root.resolve("gone.img");
    assertThatThrownBy(() -> loops.attach(missing))
        .isInstanceOfSatisfying(
            HostCommandException.class, e -> assertThat(e.errno()).isEqualTo(Errno.ENOENT))
        .hasMessage(
            "LOOP_CONFIGURE " + missing + " failed: " + missing + " does not exist (ENOENT)");
  }

  @Test
  void detachingADeviceTwiceIsANoOp() throws Exception {
    LoopDevice device = loops.attach(image);
    loops.detach(device);
    loops.detach(device); // LOOP_CLR_FD answers ENXIO: a retried unstage has nothing left to do
    assertThat(loops.of(image)).isEmpty();
  }

  @Test
  void aDeviceStillMountedIsReportedPendingAndDetachedWhenItIsUnmounted() throws Exception {
    new ProcessCommandRunner()
        .run(java.time.Duration.ofSeconds(60), List.of("mkfs.ext4", "-q", "-F", image.toString()));
    LoopDevice device = loops.attach(image);
    Path mountPoint = Files.createDirectories(root.resolve("mnt"));
    Mounts mounts = new Mounts(new ProcessCommandRunner());
    mounts.mount(device.path(), mountPoint, "ext4", List.of());
    try {
      assertThatThrownBy(() -> loops.detach(device))
          .isInstanceOf(DetachPendingException.class)
          .hasMessageContaining(device.path() + " is still attached to")
          .hasMessageContaining("mount at " + mountPoint);
      assertThat(sys(device, "loop/autoclear")).as("cleared once unused").isEqualTo("1");
      assertThat(loops.detaching(device)).isTrue();
    } finally {
      mounts.unmount(mountPoint);
    }
    loops.awaitDetached(device);
    assertThat(loops.of(image)).isEmpty();
  }

  private static String sys(LoopDevice device, String entry) throws Exception {
    return Files.readString(SYS_BLOCK.resolve(device.name()).resolve(entry)).strip();
  }

  private static Path sized(Path file, long bytes) throws Exception {
    SparseFiles.extend(file, bytes);
    return file;
  }
}
