package io.thinvol.driver.host;

import static org.assertj.core.api.Assertions.assertThat;

import io.thinvol.driver.store.Catalog;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The blank check from an image's extent map, on real loop devices: it may only say "blank" where
 * reading the device would say so too.
 */
class BlankCheckTest {

  private static final long MIB = 1L << 20;
  private static final long SIZE = 16 * MIB;
  private final LoopDevices loops = new LoopDevices(new ProcessCommandRunner());
  private Path root;
  private Path image;

  @BeforeEach
  void createImage() throws Exception {
    root = Files.createTempDirectory("thinvol-blank-");
    image = root.resolve("disk.img");
    SparseFiles.extend(image, SIZE);
  }

  @AfterEach
  void cleanUp() throws Exception {
    loops.detach(image);
    List<String> leaked = HostCleanup.release(root);
    Catalog.removeTree(root);
    assertThat(leaked).as("left behind").isEmpty();
  }

  @Test
  void aFreshImageIsBlankByItsExtentMap() {
    LoopDevice device = loops.attach(image, IoMode.DIRECT);
    assertThat(BlankCheck.imageIsBlank(image, device, SIZE)).isTrue();
    assertThat(BlankCheck.isBlank(device.path(), SIZE)).isTrue();
  }

  @Test
  void dataInTheFirstMibIsNotBlank() throws Exception {
    write(MIB - 1);
    LoopDevice device = loops.attach(image, IoMode.DIRECT);
    assertThat(BlankCheck.imageIsBlank(image, device, SIZE)).isFalse();
    assertThat(BlankCheck.isBlank(device.path(), SIZE)).isFalse();
  }

  @Test
  void dataInTheLastMibIsNotBlank() throws Exception {
    write(SIZE - MIB);
    LoopDevice device = loops.attach(image, IoMode.BUFFERED);
    assertThat(BlankCheck.imageIsBlank(image, device, SIZE)).isFalse();
    assertThat(BlankCheck.isBlank(device.path(), SIZE)).isFalse();
  }

  @Test
  void dataBetweenTheSignatureRegionsLeavesItBlank() throws Exception {
    write(SIZE / 2);
    LoopDevice device = loops.attach(image, IoMode.DIRECT);
    assertThat(BlankCheck.imageIsBlank(image, device, SIZE)).isTrue();
    assertThat(BlankCheck.isBlank(device.path(), SIZE)).isTrue();
  }

  @Test
  void aFileThatIsNotTheDevicesBackingFileProvesNothing() throws Exception {
    LoopDevice device = loops.attach(image, IoMode.DIRECT);
    Path other = root.resolve("other.img");
    SparseFiles.extend(other, SIZE);
    assertThat(BlankCheck.imageIsBlank(other, device, SIZE)).isFalse();
    assertThat(BlankCheck.imageIsBlank(root.resolve("missing.img"), device, SIZE)).isFalse();
  }

  @Test
  void anImageOfAnotherSizeThanTheDeviceProvesNothing() {
    LoopDevice device = loops.attach(image, IoMode.DIRECT);
    assertThat(BlankCheck.imageIsBlank(image, device, SIZE + MIB)).isFalse();
  }

  /** One non-zero byte at {@code offset}, written to the image, not through a device. */
  private void write(long offset) throws Exception {
    try (FileChannel channel = FileChannel.open(image, StandardOpenOption.WRITE)) {
      channel.write(ByteBuffer.wrap(new byte[] {1}), offset);
    }
  }
}
