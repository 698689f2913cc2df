package io.thinvol.driver.csi;

import static io.thinvol.driver.GrpcAssertions.assertCode;
import static io.thinvol.driver.GrpcAssertions.message;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import csi.v1.CapacityRange;
import csi.v1.ControllerGetCapabilitiesRequest;
import csi.v1.ControllerModifyVolumeRequest;
import csi.v1.ControllerServiceCapability;
import csi.v1.CreateVolumeRequest;
import csi.v1.ListVolumesRequest;
import csi.v1.VolumeCapability;
import io.grpc.Status;
import io.thinvol.driver.DriverHarness;
import io.thinvol.driver.LoopIoModes;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.host.HostCleanup;
import io.thinvol.driver.host.LoopDevice;
import io.thinvol.driver.host.LoopDevices;
import io.thinvol.driver.host.ProcessCommandRunner;
import io.thinvol.driver.preflight.DataFiles;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * ControllerModifyVolume and the {@code ioMode} parameter, on real loop devices: the mode a volume
 * records is the mode its devices run in, switched live under I/O, and kept across a reboot.
 */
class ModifyVolumeTest {

  private static final long MIB = 1L << 20;
  private static final int MAX_CHUNKS = 160; // the writer's file fits the 256 MiB volume
  private static final VolumeCapability EXT4 = Capabilities.mount("ext4");
  private static final String IO_MODE = "ioMode";

  private DriverHarness driver;
  private final LoopDevices loops = new LoopDevices(new ProcessCommandRunner());

  @BeforeEach
  void start() throws IOException {
    driver = new DriverHarness();
  }

  @AfterEach
  void stop() throws IOException {
    driver.close();
  }

  @Test
  void switchesTheModeOfAMountedVolumeLiveWhileItIsWrittenAndKeepsItsData() throws Exception {
    String id = create("live", Map.of(IO_MODE, "buffered"), Map.of());
    Path file = stageAndPublish(id).resolve("data.bin");
    assertThat(deviceMode(id)).isEqualTo("buffered");

    Writer writer = new Writer(file);
    CompletableFuture<String> written = CompletableFuture.supplyAsync(writer::run);
    try {
      assertThat(writer.started.await(30, TimeUnit.SECONDS)).isTrue();
      modify(id, "direct");
      assertThat(deviceMode(id)).isEqualTo("direct");
      assertThat(losetupReportsDirectIo(id)).isTrue();
      long before = writer.chunks.get();
      writer.awaitChunks(before + 4);
      modify(id, "buffered");
      assertThat(deviceMode(id)).isEqualTo("buffered");
      assertThat(losetupReportsDirectIo(id)).isFalse();
      writer.awaitChunks(writer.chunks.get() + 4);
      modify(id, "direct");
      writer.awaitChunks(writer.chunks.get() + 4);
    } finally {
      writer.stop.set(true);
    }
    String digest = written.get(120, TimeUnit.SECONDS);
    assertThat(recordedMode(id)).isEqualTo("direct");

    // Read back from the image, not from a cache: unstaging drops the filesystem's pages.
    unpublishAndUnstage(id);
    Path again = stageAndPublish(id).resolve("data.bin");
    assertThat(deviceMode(id)).isEqualTo("direct");
    assertThat(DataFiles.sha256(again)).isEqualTo(digest);
    unpublishAndUnstage(id);
  }

  @Test
  void aVolumeThatIsNotAttachedRecordsTheModeAndTheNextAttachFollowsIt() throws Exception {
    String id = create("offline", Map.of(), Map.of());
    assertThat(recordedMode(id)).isEqualTo("direct"); // the default

    modify(id, "buffered");
    assertThat(recordedMode(id)).isEqualTo("buffered");
    assertThat(loops.of(image(id))).isEmpty();
    stageAndPublish(id);
    assertThat(deviceMode(id)).isEqualTo("buffered");
    unpublishAndUnstage(id);

    modify(id, "direct");
    modify(id, "direct"); // idempotent
    assertThat(recordedMode(id)).isEqualTo("direct");
    stageAndPublish(id);
    assertThat(deviceMode(id)).isEqualTo("direct");
    unpublishAndUnstage(id);
  }

  @Test
  void aRebootedVolumeIsReattachedInTheModeItWasLastGiven() throws Exception {
    String id = create("reboot", Map.of(IO_MODE, "direct"), Map.of());
    String data = DataFiles.writeRandom(stageAndPublish(id).resolve("data.bin"), 4 * MIB);
    modify(id, "buffered");

    // A reboot: every mount and loop device is gone, the data dir is not.
    assertThat(HostCleanup.release(driver.root())).hasSize(3);
    assertThat(loops.of(image(id))).isEmpty();

    Path file = stageAndPublish(id).resolve("data.bin");
    assertThat(deviceMode(id)).isEqualTo("buffered");
    assertThat(DataFiles.sha256(file)).isEqualTo(data);
    unpublishAndUnstage(id);
  }

  @Test
  void readOnlyBlockDevicesSwitchWithTheVolume() throws Exception {
    VolumeCapability block = Capabilities.block();
    String id = create("block", Map.of(IO_MODE, "buffered"), Map.of(), block);
    driver.stage(id, driver.staging("block"), block);
    driver.publish(id, driver.staging("block"), driver.blockTarget("block"), block, true);
    assertThat(loops.of(image(id))).hasSize(2);

    modify(id, "direct");
    assertThat(loops.of(image(id))).extracting(this::mode).containsOnly("direct");

    driver.unpublish(id, driver.blockTarget("block"));
    driver.unstage(id, driver.staging("block"));
  }

  @Test
  void createVolumeTakesTheModeFromMutableParametersBeforeTheStorageClass() {
    String id = create("precedence", Map.of(IO_MODE, "buffered"), Map.of(IO_MODE, "direct"));
    assertThat(recordedMode(id)).isEqualTo("direct");
    assertThat(create("precedence", Map.of(IO_MODE, "buffered"), Map.of(IO_MODE, "direct")))
        .isEqualTo(id);
  }

  @Test
  void createVolumeRefusesAModeThatIsNoneNamingTheValue() {
    assertThat(
            message(
                assertCode(
                    Status.Code.INVALID_ARGUMENT,
                    () -> create("bad", Map.of(IO_MODE, "turbo"), Map.of()))))
        .contains("ioMode='turbo'")
        .contains("direct or buffered");
    assertThat(
            message(
                assertCode(
                    Status.Code.INVALID_ARGUMENT,
                    () -> create("bad", Map.of(), Map.of(IO_MODE, "DIRECT")))))
        .contains("'DIRECT'");
  }

  @Test
  void createVolumeRefusesMutableParametersThatCannotChange() {
    assertThat(
            message(
                assertCode(
                    Status.Code.INVALID_ARGUMENT,
                    () ->
                        create(
                            "immutable",
                            Map.of(),
                            Map.of("csi.storage.k8s.io/fstype", "xfs", "speed", "max")))))
        .contains("csi.storage.k8s.io/fstype (not mutable")
        .contains("'speed' (unknown)");
    assertThat(
            driver
                .csi()
                .controller()
                .listVolumes(ListVolumesRequest.getDefaultInstance())
                .getEntriesCount())
        .isZero();
  }

  @Test
  void modifyVolumeNamesEveryParameterItCannotChange() {
    String id = create("named", Map.of(), Map.of());
    assertThat(
            message(
                assertCode(
                    Status.Code.INVALID_ARGUMENT,
                    () ->
                        driver
                            .csi()
                            .controller()
                            .controllerModifyVolume(
                                modifyRequest(
                                    id,
                                    Map.of(
                                        IO_MODE,
                                        "buffered",
                                        "csi.storage.k8s.io/fstype",
                                        "xfs",
                                        "iops",
                                        "3000"))))))
        .contains("csi.storage.k8s.io/fstype (not mutable")
        .contains("'iops' (unknown)");
    assertThat(recordedMode(id)).as("nothing changed").isEqualTo("direct");
    assertThat(message(assertCode(Status.Code.INVALID_ARGUMENT, () -> modify(id, "fast"))))
        .contains("'fast'");
  }

  @Test
  @DisplayName(
      "An empty mutable_parameters asks for no change: OK, nothing recorded or switched (csi-sanity's"
          + " rows, with and without a VolumeAttributesClass)")
  void modifyVolumeWithoutParametersChangesNothing() {
    String plain = create("unchanged", Map.of(), Map.of());
    String withClass = create("unchanged-vac", Map.of(), Map.of(IO_MODE, "buffered"));
    for (String id : List.of(plain, withClass)) {
      driver.csi().controller().controllerModifyVolume(modifyRequest(id, Map.of()));
    }
    assertThat(recordedMode(plain)).isEqualTo("direct");
    assertThat(recordedMode(withClass)).isEqualTo("buffered");
  }

  @Test
  void modifyVolumeOfAnUnknownVolumeIsNotFound() {
    assertCode(
        Status.Code.NOT_FOUND, () -> modify("vol-0123456789abcdef0123456789abcdef", "direct"));
    assertCode(Status.Code.NOT_FOUND, () -> modify("no-such-volume", "direct"));
    assertCode(Status.Code.INVALID_ARGUMENT, () -> modify("", "direct"));
    // csi-sanity's row: no mutable parameters at all
    assertCode(
        Status.Code.NOT_FOUND,
        () ->
            driver
                .csi()
                .controller()
                .controllerModifyVolume(modifyRequest("non-existing-volume-id", Map.of())));
  }

  @Test
  void modifyVolumeIsAdvertised() {
    assertThat(
            driver
                .csi()
                .controller()
                .controllerGetCapabilities(ControllerGetCapabilitiesRequest.getDefaultInstance())
                .getCapabilitiesList())
        .extracting(c -> c.getRpc().getType())
        .contains(ControllerServiceCapability.RPC.Type.MODIFY_VOLUME);
  }

  /** Writes random 1 MiB chunks with an fsync each until stopped; returns their digest. */
  private static final class Writer {
    final CountDownLatch started = new CountDownLatch(1);
    final AtomicBoolean stop = new AtomicBoolean();
    final AtomicLong chunks = new AtomicLong();
    private final Path file;

    Writer(Path file) {
      this.file = file;
    }

    String run() {
      try (FileChannel channel =
              FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
          OutputStream out = Channels.newOutputStream(channel)) {
        MessageDigest digest = MessageDigest.getInstance("SHA-256");
        Random random = new Random(42);
        byte[] chunk = new byte[(int) MIB];
        while (!stop.get() && chunks.get() < MAX_CHUNKS) {
          random.nextBytes(chunk);
          out.write(chunk);
          channel.force(true);
          digest.update(chunk);
          chunks.incrementAndGet();
          started.countDown();
        }
        return HexFormat.of().formatHex(digest.digest());
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }

    /** Waits until the writer has written {@code count} chunks (while modifications happen). */
    void awaitChunks(long count) throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (chunks.get() < count && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      assertThat(chunks.get()).as("chunks written by now").isGreaterThanOrEqualTo(count);
    }
  }

  private String create(String name, Map<String, String> parameters, Map<String, String> mutable) {
    return create(name, parameters, mutable, EXT4);
  }

  private String create(
      String name,
      Map<String, String> parameters,
      Map<String, String> mutable,
      VolumeCapability capability) {
    return driver
        .csi()
        .controller()
        .createVolume(
            CreateVolumeRequest.newBuilder()
                .setName(name)
                .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(256 * MIB))
                .addVolumeCapabilities(capability)
                .putAllParameters(parameters)
                .putAllMutableParametersSpec(mutable)
                .build())
        .getVolume()
        .getVolumeId();
  }

  private static ControllerModifyVolumeRequest modifyRequest(
      String id, Map<String, String> parameters) {
    return ControllerModifyVolumeRequest.newBuilder()
        .setVolumeId(id)
        .putAllMutableParameters(parameters)
        .build();
  }

  private void modify(String id, String mode) {
    driver.csi().controller().controllerModifyVolume(modifyRequest(id, Map.of(IO_MODE, mode)));
  }

  private Path stageAndPublish(String id) {
    driver.stage(id, driver.staging(id), EXT4);
    driver.publish(id, driver.staging(id), driver.target(id), EXT4, false);
    return driver.target(id);
  }

  private void unpublishAndUnstage(String id) {
    driver.unpublish(id, driver.target(id));
    driver.unstage(id, driver.staging(id));
  }

  private Path image(String id) {
    return driver.dataDir().resolve("volumes").resolve(id).resolve("disk.img");
  }

  /** The read-write device's mode as sysfs shows it ({@code loop/dio}). */
  private String deviceMode(String id) {
    List<LoopDevice> devices = loops.of(image(id));
    assertThat(devices).hasSize(1);
    return mode(devices.get(0));
  }

  private String mode(LoopDevice device) {
    return LoopIoModes.sysfs(device);
  }

  /** What {@code losetup --json} says of the volume's device: the tool an operator would use. */
  private boolean losetupReportsDirectIo(String id) throws Exception {
    return LoopIoModes.losetupReportsDirectIo(loops.of(image(id)).get(0).path());
  }

  private String recordedMode(String id) {
    try {
      JsonNode meta =
          new ObjectMapper()
              .readTree(
                  driver.dataDir().resolve("volumes").resolve(id).resolve("meta.json").toFile());
      return meta.get(IO_MODE).asText();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
