package io.thinvol.driver.preflight;

import static org.assertj.core.api.Assertions.assertThat;

import io.thinvol.driver.host.LoopDevices;
import io.thinvol.driver.host.MountTable;
import io.thinvol.driver.host.ProcessCommandRunner;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The README's main command, run the way an admin runs it. */
class PreflightTest {

  @Test
  void drivesTheWholeLifecycleAndLeavesNothingBehind() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int exit;
    try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
      exit = new Preflight(out).run(null, "preflight-node", "test");
    }
    String report = bytes.toString(StandardCharsets.UTF_8);
    assertThat(exit).as(report).isZero();
    assertThat(report)
        .contains("PASS create a 1 GiB ext4 volume")
        .contains("PASS restore the snapshot and compare data")
        .contains("PASS xfs volume: expand online")
        .contains("PASS reclaim deleted space")
        .contains("PASS block volume round trip")
        .contains("PASS nothing left behind")
        .doesNotContain("FAIL")
        .contains("preflight succeeded");
    assertThat(new LoopDevices(new ProcessCommandRunner()).all())
        .noneMatch(d -> d.backingName().contains("thinvol-preflight-"));
    assertThat(MountTable.read().under(Path.of("/var/tmp")))
        .noneMatch(m -> m.mountPoint().toString().contains("thinvol-preflight-"));
    try (Stream<Path> left = Files.list(Path.of("/var/tmp"))) {
      assertThat(left).noneMatch(p -> p.getFileName().toString().startsWith("thinvol-preflight-"));
    }
  }
}
