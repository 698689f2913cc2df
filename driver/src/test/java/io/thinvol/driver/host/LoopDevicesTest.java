package io.thinvol.driver.host;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.thinvol.driver.store.Catalog;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Loop devices are recognised by their backing file's device and inode, as the kernel has them. */
class LoopDevicesTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private final ProcessCommandRunner runner = new ProcessCommandRunner();
  private final LoopDevices loops = new LoopDevices(runner);
  private Path root;
  private Path image;

  @BeforeEach
  void createImage() throws Exception {
    root = Files.createTempDirectory("thinvol-loops-");
    image = root.resolve("data/disk.img");
    Files.createDirectories(image.getParent());
    SparseFiles.extend(image, 8 << 20);
  }

  @AfterEach
  void cleanUp() throws Exception {
    List<String> leaked = HostCleanup.release(root);
    Catalog.removeTree(root);
    assertThat(leaked).as("left behind").isEmpty();
  }

  @Test
  void aDeviceNodeTheKernelWillNotOpenBacksNothing() throws Exception {
    // 240: a major number for local use, nothing registered: open(2) answers ENXIO, as it does
    // for a loop device being cleared or removed
    Path gone = root.resolve("loop-gone");
    runner.run(TIMEOUT, List.of("mknod", gone.toString(), "b", "240", "77"));
    assertThat(LoopStatus.backingFile(gone)).isEmpty();
  }

  @Test
  void aScanWhileAnotherDeviceIsAttachedAndDetachedNeverFails() throws Exception {
    Path other = root.resolve("data/other.img");
    SparseFiles.extend(other, 8 << 20);
    AtomicBoolean done = new AtomicBoolean();
    CompletableFuture<Integer> churn =
        CompletableFuture.supplyAsync(
            () -> {
              int cycles = 0;
              while (!done.get()) {
                loops.detach(loops.attach(other));
                cycles++;
              }
              return cycles;
            });
    try {
      long end = System.nanoTime() + Duration.ofSeconds(3).toNanos();
      while (System.nanoTime() < end && !churn.isDone()) {
        loops.all();
      }
    } finally {
      done.set(true);
    }
    assertThat(churn.get()).as("devices attached and detached meanwhile").isPositive();
  }

  @Test
  void theBackingFileIsTheImageByDeviceAndInodeAsStatAndLosetupSeeIt() throws Exception {
    LoopDevice device = loops.attach(image);
    try {
      String[] stat =
          runner
              .run(TIMEOUT, List.of("stat", "-c", "%Hd %Ld %i", image.toString()))
              .stdout()
              .strip()
              .split(" ");
      FileId expected =
          new FileId(Integer.parseInt(stat[0]), Integer.parseInt(stat[1]), Long.parseLong(stat[2]));
      assertThat(FileId.of(image)).contains(expected);
      assertThat(device.backingFile()).isEqualTo(expected);

      JsonNode listed =
          new ObjectMapper()
              .readTree(
                  runner
                      .run(
                          TIMEOUT,
                          List.of(
                              "losetup",
                              "--list",
                              "--json",
                              "-O",
                              "NAME,BACK-INO,BACK-MAJ:MIN",
                              device.path().toString()))
                      .stdout())
              .path("loopdevices")
              .get(0);
      assertThat(listed.path("back-ino").asLong()).isEqualTo(expected.inode());
      assertThat(listed.path("back-maj:min").asText().strip())
          .isEqualTo(expected.major() + ":" + expected.minor());

      assertThat(loops.find(image)).contains(device);
      assertThat(loops.attach(image)).as("never a second device").isEqualTo(device);
      assertThat(loops.of(image)).containsExactly(device);
    } finally {
      loops.detach(device);
    }
    assertThat(loops.of(image)).isEmpty();
  }

  @Test
  void theImageSeenThroughABindMountIsTheSameFile() throws Exception {
    Path bound = Files.createDirectories(root.resolve("bound"));
    runner.run(TIMEOUT, List.of("mount", "--bind", image.getParent().toString(), bound.toString()));
    Path sameImage = bound.resolve(image.getFileName());
    LoopDevice device = loops.attach(sameImage);
    try {
      assertThat(device.backingName()).isEqualTo(sameImage.toString());
      assertThat(FileId.of(sameImage)).isEqualTo(FileId.of(image));
      assertThat(loops.find(image)).as("found by the other path").contains(device);
      assertThat(loops.attachedFiles()).contains(FileId.of(image).orElseThrow());
    } finally {
      loops.detach(device);
      runner.run(TIMEOUT, List.of("umount", bound.toString()));
    }
  }

  @Test
  void anotherFileAtTheSamePathIsNotTheAttachedImage() throws Exception {
    LoopDevice device = loops.attach(image);
    try {
      Path moved = image.resolveSibling("moved.img");
      Files.move(image, moved);
      Files.copy(moved, image);
      assertThat(loops.find(image)).as("a new file under the old name").isEmpty();
      assertThat(loops.find(moved)).map(LoopDevice::path).contains(device.path());
    } finally {
      loops.detach(device);
    }
  }

  @Test
  void theDeviceLastFoundIsCheckedWithTheKernelBeforeItIsTrusted() throws Exception {
    LoopDevice device = loops.attach(image);
    Path other = root.resolve("data/other.img");
    SparseFiles.extend(other, 8 << 20);
    assertThat(loops.find(image)).contains(device);
    // detached behind the driver's back, then its node given to another file where the kernel lets
    // us (another process may take the free node first: then it backs that process's file)
    runner.run(TIMEOUT, List.of("losetup", "--detach", device.path().toString()));
    runner.run(TIMEOUT, List.of("sh", "-c", "losetup " + device.path() + " " + other + " || true"));
    assertThat(loops.find(image)).as("no longer the image's device").isEmpty();
    assertThat(loops.find(other))
        .as("the other file is found wherever it is attached")
        .isEqualTo(loops.of(other).stream().findFirst());
    loops.find(other).ifPresent(loops::detach);

    LoopDevice again = loops.attach(image);
    try {
      assertThat(loops.find(image)).as("attached again, on any node").contains(again);
    } finally {
      loops.detach(again);
    }
    assertThat(loops.find(image)).isEmpty();
  }

  @Test
  void aDetachReturnsOnceTheKernelHasClearedADeviceAnotherProcessHeldOpen() throws Exception {
    LoopDevice device = loops.attach(image);
    FileChannel holder = FileChannel.open(device.path(), StandardOpenOption.READ);
    CompletableFuture<Void> released =
        CompletableFuture.runAsync(
            () -> {
              try {
                Thread.sleep(500);
                holder.close();
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    try {
      loops.detach(device);
      assertThat(loops.find(image))
          .as("no longer the image's device once detach returns")
          .isEmpty();
    } finally {
      released.get(10, TimeUnit.SECONDS);
      loops.find(image).ifPresent(loops::detach);
    }
  }

  @Test
  void deviceNumbersAboveEightBitsOfMinorDecodeAsTheKernelEncodesThem() {
    int major = 259;
    int minor = 0x12345;
    long kernel = (minor & 0xff) | ((long) major << 8) | ((long) (minor & ~0xff) << 12);
    long glibc =
        ((long) (major & 0xfff) << 8)
            | ((long) (major & ~0xfff) << 32)
            | (minor & 0xff)
            | ((long) (minor & ~0xff) << 12);
    assertThat(FileId.fromDeviceNumber(kernel, 7)).isEqualTo(new FileId(major, minor, 7));
    assertThat(FileId.fromDeviceNumber(glibc, 7)).isEqualTo(new FileId(major, minor, 7));
  }
}
