package io.thinvol.driver.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thinvol.driver.store.Catalog;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** mount(2) and umount2(2) on a real ext4 filesystem on a loop device, and their failures. */
class MountsTest {

  private final ProcessCommandRunner runner = new ProcessCommandRunner();
  private final Mounts mounts = new Mounts(runner);
  private final LoopDevices loops = new LoopDevices(runner);
  private Path root;
  private LoopDevice device;
  private Path staging;

  @BeforeEach
  void mountFilesystem() throws Exception {
    root = Files.createTempDirectory("thinvol-mounts-");
    Path image = root.resolve("disk.img");
    SparseFiles.extend(image, 32 << 20);
    device = loops.attach(image);
    runner.run(Duration.ofSeconds(60), List.of("mkfs.ext4", "-q", "-F", device.path().toString()));
    staging = Files.createDirectories(root.resolve("staging"));
    mounts.mount(
        device.path(), staging, "ext4", List.of("nosuid", "nodev", "noatime", "errors=remount-ro"));
  }

  @AfterEach
  void cleanUp() throws Exception {
    try {
      mounts.unmount(staging);
      loops.detach(device);
    } finally {
      List<String> leaked = HostCleanup.release(root);
      Catalog.removeTree(root);
      assertThat(leaked).as("left behind").isEmpty();
    }
  }

  @Test
  void genericOptionsBecomeFlagsAndTheRestGoesToTheFilesystem() {
    MountEntry entry = MountTable.read().at(staging).orElseThrow();
    assertThat(entry.fsType()).isEqualTo("ext4");
    assertThat(entry.mountOptions()).contains("rw", "nosuid", "nodev", "noatime");
    assertThat(entry.superOptions()).contains("errors=remount-ro");
  }

  @Test
  void aReadOnlyBindKeepsTheFlagsItInheritedAndRefusesWrites() throws Exception {
    Path target = Files.createDirectories(root.resolve("target"));
    mounts.bind(staging, target, true, List.of());
    MountEntry entry = MountTable.read().at(target).orElseThrow();
    assertThat(entry.mountOptions()).contains("ro", "nosuid", "nodev", "noatime");
    assertThatThrownBy(() -> Files.writeString(target.resolve("x"), "x"))
        .hasMessageContaining("Read-only file system");
    Files.writeString(staging.resolve("y"), "y");
    assertThat(target.resolve("y")).hasContent("y");
    mounts.unmount(target);
    assertThat(MountTable.read().at(target)).isEmpty();
  }

  @Test
  void aBusyMountIsRefusedAndSaysWhy() throws Exception {
    Path file = staging.resolve("open.bin");
    try (FileChannel open =
        FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      assertThatThrownBy(() -> mounts.unmount(staging))
          .isInstanceOfSatisfying(HostCommandException.class, e -> assertThat(e.isBusy()).isTrue())
          .hasMessage(
              "umount "
                  + staging
                  + " failed: "
                  + staging
                  + " is busy: a process still has a file open there, or something is mounted"
                  + " below it (EBUSY)");
    }
    assertThat(MountTable.read().at(staging)).as("never lazily detached").isPresent();
  }

  @Test
  void unmountingWhatIsNotMountedSaysSo() throws Exception {
    Path plain = Files.createDirectories(root.resolve("plain"));
    assertThatThrownBy(() -> mounts.unmount(plain))
        .hasMessage("umount " + plain + " failed: " + plain + " is not a mount point (EINVAL)");
  }

  @Test
  void mountingADeviceWithoutThatFilesystemSaysWhatMayBeWrong() throws Exception {
    Path blank = root.resolve("blank.img");
    SparseFiles.extend(blank, 8 << 20);
    LoopDevice empty = loops.attach(blank);
    Path other = Files.createDirectories(root.resolve("other"));
    try {
      assertThatThrownBy(() -> mounts.mount(empty.path(), other, "ext4", List.of()))
          .hasMessage(
              "mount -t ext4 "
                  + empty.path()
                  + " "
                  + other
                  + " failed: "
                  + other
                  + " was refused: the filesystem on "
                  + empty.path()
                  + " is damaged or not ext4, or a mount option is unknown (see dmesg) (EINVAL)");
    } finally {
      loops.detach(empty);
    }
  }

  @Test
  void mountingOnAMissingDirectoryNamesIt() {
    Path missing = root.resolve("missing");
    assertThatThrownBy(() -> mounts.mount(device.path(), missing, "ext4", List.of()))
        .hasMessageEndingWith(missing + " does not exist (ENOENT)");
  }
}
