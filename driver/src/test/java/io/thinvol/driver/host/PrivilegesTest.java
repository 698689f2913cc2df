package io.thinvol.driver.host;

import static org.assertj.core.api.Assertions.assertThat;

import io.thinvol.driver.store.Catalog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Without CAP_SYS_ADMIN, mounts and loop devices fail with a message saying what is missing. */
class PrivilegesTest {

  private Path root;

  @BeforeEach
  void createDirectory() throws Exception {
    root = Files.createTempDirectory("thinvol-privileges-");
    Files.createDirectories(root.resolve("source"));
  }

  @AfterEach
  void cleanUp() throws Exception {
    List<String> leaked = HostCleanup.release(root);
    Catalog.removeTree(root);
    assertThat(leaked).as("left behind").isEmpty();
  }

  @Test
  void withoutCapSysAdminTheCallsSayTheDriverMustRunPrivileged() throws Exception {
    Path mounted = Files.createDirectories(root.resolve("mounted"));
    new Mounts(new ProcessCommandRunner()).bind(root.resolve("source"), mounted, false, List.of());
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    CommandResult result =
        new ProcessCommandRunner()
            .run(
                Duration.ofMinutes(2),
                List.of(
                    "setpriv",
                    "--bounding-set",
                    "-sys_admin",
                    "--",
                    java,
                    "-cp",
                    System.getProperty("java.class.path"),
                    UnprivilegedCalls.class.getName(),
                    root.toString()));
    String needs =
        " is not permitted without CAP_SYS_ADMIN: run the driver's container privileged, as the"
            + " node DaemonSet does (EPERM)";
    assertThat(result.stdout().lines())
        .contains(
            "bind: mount --bind "
                + root.resolve("source")
                + " "
                + root.resolve("target")
                + " failed: "
                + root.resolve("target")
                + needs,
            "unmount: umount " + mounted + " failed: " + mounted + needs);
    assertThat(MountTable.read().at(mounted)).as("still mounted").isPresent();
    new Mounts(new ProcessCommandRunner()).unmount(mounted);
  }
}
