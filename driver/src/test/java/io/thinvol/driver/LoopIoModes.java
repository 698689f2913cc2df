package io.thinvol.driver;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.thinvol.driver.host.LoopDevice;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A loop device's I/O mode as the kernel and the admin's tool report it, not as the driver does.
 */
public final class LoopIoModes {

  private LoopIoModes() {}

  /** {@code direct} or {@code buffered}, from sysfs ({@code loop/dio}). */
  public static String sysfs(LoopDevice device) {
    try {
      Path dio = Path.of("/sys/block", device.name(), "loop/dio");
      return Files.readString(dio).strip().equals("1") ? "direct" : "buffered";
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** What {@code losetup --json} says of the device's direct I/O. */
  public static boolean losetupReportsDirectIo(Path device) throws Exception {
    Process process =
        new ProcessBuilder("losetup", "--json", "--list", device.toString())
            .redirectErrorStream(true)
            .start();
    String json = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor()).as(json).isZero();
    return new ObjectMapper().readTree(json).get("loopdevices").get(0).get("dio").asBoolean();
  }
}
