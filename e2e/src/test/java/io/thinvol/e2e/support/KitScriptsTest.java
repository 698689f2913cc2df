package io.thinvol.e2e.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The kit's scripts, faked: which failure is undone and tried again (no cluster needed). */
class KitScriptsTest {

  private static final String SANDBOX_FAILURE =
      "add-node.sh: the sandbox image localhost/e2e-pause:1 is not in containerd: see image-import.log";

  @TempDir Path kit;

  @Test
  void theSandboxChecksFailureIsUndoneAndTriedOnceMore() throws IOException {
    step("add-node.sh", List.of(SANDBOX_FAILURE), 0);

    new KitScripts(kit)
        .run(Map.of(), List.of("stop-cluster.sh", "--node", "2"), "add-node.sh", "2");

    assertThat(calls())
        .containsExactly("add-node.sh 2", "stop-cluster.sh --node 2", "add-node.sh 2");
  }

  @Test
  void anotherFailureIsNotTriedAgain() throws IOException {
    step("add-node.sh", List.of("add-node.sh: containerd did not start"), 0);

    assertThatThrownBy(
            () ->
                new KitScripts(kit)
                    .run(Map.of(), List.of("stop-cluster.sh", "--node", "2"), "add-node.sh", "2"))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("containerd did not start");
    assertThat(calls()).containsExactly("add-node.sh 2");
  }

  @Test
  void theSandboxChecksFailureTwiceFails() throws IOException {
    step("add-node.sh", List.of(SANDBOX_FAILURE, SANDBOX_FAILURE), 0);

    assertThatThrownBy(
            () ->
                new KitScripts(kit)
                    .run(Map.of(), List.of("stop-cluster.sh", "--node", "2"), "add-node.sh", "2"))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("sandbox image");
    assertThat(calls())
        .containsExactly("add-node.sh 2", "stop-cluster.sh --node 2", "add-node.sh 2");
  }

  /**
   * A fake script of the kit that logs each call to {@code calls}, fails its first runs with the
   * given messages, then ends with {@code code}; and a stop-cluster.sh that only logs.
   */
  private void step(String name, List<String> failures, int code) throws IOException {
    StringBuilder body = new StringBuilder("#!/bin/sh\n");
    body.append("echo \"$(basename \"$0\") $*\" >> \"$(dirname \"$0\")/calls\"\n");
    body.append("n=$(grep -c \"^$(basename \"$0\") \" \"$(dirname \"$0\")/calls\")\n");
    for (int i = 0; i < failures.size(); i++) {
      body.append("[ \"$n\" = ").append(i + 1).append(" ] && { echo '");
      body.append(failures.get(i)).append("' >&2; exit 1; }\n");
    }
    body.append("exit ").append(code).append('\n');
    script(name, body.toString());
    script(
        "stop-cluster.sh",
        "#!/bin/sh\necho \"$(basename \"$0\") $*\" >> \"$(dirname \"$0\")/calls\"\n");
  }

  private void script(String name, String body) throws IOException {
    Path file = kit.resolve(name);
    Files.writeString(file, body);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  private List<String> calls() throws IOException {
    return Files.readAllLines(kit.resolve("calls"));
  }
}
