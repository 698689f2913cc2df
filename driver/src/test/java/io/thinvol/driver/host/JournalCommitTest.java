package io.thinvol.driver.host;

import static org.assertj.core.api.Assertions.assertThat;

import io.thinvol.driver.store.Catalog;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Committing a real ext4 journal without a syncfs makes the blocks of a fresh delete trimmable. */
class JournalCommitTest {

  private static final long MIB = 1 << 20;
  private static final Duration TIMEOUT = Duration.ofMinutes(1);

  private final ProcessCommandRunner runner = new ProcessCommandRunner();
  private final Filesystems filesystems = new Filesystems(runner);
  private Path root;
  private Path image;

  @BeforeEach
  void createImage() throws Exception {
    root = Files.createTempDirectory("thinvol-commit-");
    image = root.resolve("disk.img");
    try (RandomAccessFile file = new RandomAccessFile(image.toFile(), "rw")) {
      file.setLength(128 * MIB);
    }
  }

  @AfterEach
  void cleanUp() throws Exception {
    List<String> leaked = HostCleanup.release(root);
    Catalog.removeTree(root);
    assertThat(leaked.stream().filter(held -> !held.contains("loop device")))
        .as("mounts left behind")
        .isEmpty();
  }

  @Test
  void blocksOfAFileDeletedJustNowInASubdirectoryAreTrimmedOnceTheJournalIsCommitted()
      throws Exception {
    LoopDevice device = new LoopDevices(runner).attach(image, IoMode.DIRECT);
    runner.run(
        TIMEOUT, List.of("mkfs.ext4", "-q", "-F", "-E", "nodiscard", device.path().toString()));
    Path mountPoint = Files.createDirectories(root.resolve("mnt"));
    Mounts mounts = new Mounts(runner);
    mounts.mount(device.path(), mountPoint, "ext4", FsType.EXT4.requiredMountOptions());
    Path garbage = Files.createDirectory(mountPoint.resolve("dir")).resolve("garbage.bin");
    try (RandomAccessFile file = new RandomAccessFile(garbage.toFile(), "rw")) {
      byte[] chunk = new byte[(int) MIB];
      Arrays.fill(chunk, (byte) 1);
      for (int i = 0; i < 24; i++) {
        file.write(chunk);
      }
      file.getFD().sync();
    }
    filesystems.sync(mountPoint, TIMEOUT); // written and committed, like data a pod wrote long ago
    Files.delete(garbage); // freed in a transaction that is not committed yet
    FileStats stats = new FileStats(runner);
    long before = stats.allocatedBytes(image);

    filesystems.commitJournal(FsType.EXT4, mountPoint, TIMEOUT);
    new Discards(runner).trim(mountPoint, TIMEOUT);

    assertThat(before - stats.allocatedBytes(image))
        .as("bytes the image gave back")
        .isGreaterThanOrEqualTo(24 * MIB);
    mounts.unmount(mountPoint);
  }

  @Test
  void aDirectorysFsyncCommitsTheWholeJournalFromLinux510() {
    assertThat(Filesystems.directoryFsyncCommitsJournal("6.18.44-fc-v445")).isTrue();
    assertThat(Filesystems.directoryFsyncCommitsJournal("5.10.0-28-amd64")).isTrue();
    assertThat(Filesystems.directoryFsyncCommitsJournal("5.15.0")).isTrue();
    assertThat(Filesystems.directoryFsyncCommitsJournal("5.9.16")).isFalse();
    assertThat(Filesystems.directoryFsyncCommitsJournal("4.19.0-26-amd64")).isFalse();
    assertThat(Filesystems.directoryFsyncCommitsJournal("unknown")).isFalse();
    assertThat(Filesystems.directoryFsyncCommitsJournal(null)).isFalse();
  }
}
