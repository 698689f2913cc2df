package io.thinvol.driver.host;

import static org.assertj.core.api.Assertions.assertThat;

import io.thinvol.driver.store.Catalog;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Trims through a real loop device and holes dug into a real image give blocks back. */
class DiscardsTest {

  private static final long MIB = 1 << 20;
  private static final Duration TIMEOUT = Duration.ofMinutes(1);

  private final ProcessCommandRunner runner = new ProcessCommandRunner();
  private final Discards discards = new Discards(runner);
  private final FileStats stats = new FileStats(runner);
  private Path root;
  private Path image;

  @BeforeEach
  void createImage() throws Exception {
    root = Files.createTempDirectory("thinvol-discards-");
    image = root.resolve("disk.img");
    SparseFiles.extend(image, 64 * MIB);
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
  void aTrimReturnsTheBytesTheFilesystemDiscardedAndTheImageShrinks() throws Exception {
    LoopDevice device = new LoopDevices(runner).attach(image);
    runner.run(
        TIMEOUT, List.of("mkfs.ext4", "-q", "-F", "-E", "nodiscard", device.path().toString()));
    Path mountPoint = Files.createDirectories(root.resolve("mnt"));
    Mounts mounts = new Mounts(runner);
    mounts.mount(device.path(), mountPoint, "ext4", List.of());
    Path garbage = mountPoint.resolve("garbage.bin");
    writeRandom(garbage, 24 * MIB);
    new Filesystems(runner).sync(mountPoint, TIMEOUT);
    Files.delete(garbage);
    new Filesystems(runner).sync(mountPoint, TIMEOUT);
    long before = stats.allocatedBytes(image);

    long trimmed = discards.trim(mountPoint, TIMEOUT);

    long freed = before - stats.allocatedBytes(image);
    assertThat(freed).isGreaterThanOrEqualTo(24 * MIB);
    assertThat(trimmed).as("the filesystem's count").isGreaterThanOrEqualTo(24 * MIB);
    mounts.unmount(mountPoint);
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
    writeRandom(garbage, 24 * MIB);
    Filesystems filesystems = new Filesystems(runner);
    filesystems.sync(mountPoint, TIMEOUT); // written and committed, like data a pod wrote long ago
    Files.delete(garbage); // freed in a transaction that is not committed yet
    long before = stats.allocatedBytes(image);

    filesystems.commitJournal(FsType.EXT4, mountPoint, TIMEOUT);
    discards.trim(mountPoint, TIMEOUT);

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

  @Test
  void diggingHolesKeepsTheContentAndFreesTheZeros() throws Exception {
    try (RandomAccessFile file = new RandomAccessFile(image.toFile(), "rw")) {
      byte[] random = new byte[(int) MIB];
      new Random(7).nextBytes(random);
      file.seek(3 * MIB + 100);
      file.write(random); // data that straddles block boundaries
      file.seek(20 * MIB);
      file.write(new byte[(int) (16 * MIB)]); // written zeros: allocated, nothing in them
      file.seek(40 * MIB);
      file.write(random);
      file.getFD().sync();
    }
    String content = sha256(image);
    long before = stats.allocatedBytes(image);

    discards.digHoles(image, TIMEOUT);

    assertThat(sha256(image)).isEqualTo(content);
    assertThat(before - stats.allocatedBytes(image)).isGreaterThanOrEqualTo(16 * MIB);
    assertThat(stats.allocatedBytes(image)).isGreaterThanOrEqualTo(2 * MIB);
  }

  @Test
  void holesCanBePunchedIntoFilesOfThisFilesystem() {
    assertThat(discards.canPunchHoles(root)).isTrue();
    assertThat(root.resolve(".punch-probe")).doesNotExist();
  }

  private static void writeRandom(Path file, long bytes) throws Exception {
    byte[] chunk = new byte[(int) MIB];
    Random random = new Random(1);
    try (var out = Files.newOutputStream(file)) {
      for (long written = 0; written < bytes; written += chunk.length) {
        random.nextBytes(chunk);
        out.write(chunk);
      }
    }
  }

  private static String sha256(Path file) throws Exception {
    MessageDigest digest = MessageDigest.getInstance("SHA-256");
    try (var in = Files.newInputStream(file)) {
      byte[] buffer = new byte[(int) MIB];
      for (int read; (read = in.read(buffer)) > 0; ) {
        digest.update(buffer, 0, read);
      }
    }
    return HexFormat.of().formatHex(digest.digest());
  }
}
