package io.thinvol.packaging.image;

import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.GetPluginInfoRequest;
import csi.v1.ProbeRequest;
import csiaddons.identity.GetIdentityRequest;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.driver.client.AddonsClient;
import io.thinvol.driver.client.CsiClient;
import io.thinvol.operator.model.DriverRelease;
import io.thinvol.operator.model.Images;
import io.thinvol.operator.model.NodeDaemonSetModel;
import io.thinvol.operator.model.SelfSignedCertificate;
import io.thinvol.operator.model.Settings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * The driver from its built image, as a node runs it: the preflight in a privileged container and
 * the DaemonSet's driver container exactly as the operator renders it with that image as its
 * RELATED_IMAGE_DRIVER. Runs when {@code -Dthinvol.driverImage=IMAGE} names an image in podman's
 * store (.ci/run builds one with packaging/image/build-local.sh).
 */
@EnabledIfSystemProperty(named = Podman.DRIVER_IMAGE_PROPERTY, matches = ".+")
class DriverImageTest {

  /** The docs' example StorageBackend: the DaemonSet the operator renders for it. */
  static StorageBackend exampleBackend() throws IOException {
    Path example = Podman.ROOT.resolve("packaging/src/main/resources/examples/storagebackend.yaml");
    return Serialization.unmarshal(Files.readString(example), StorageBackend.class);
  }

  @Test
  void theImageCarriesTheDriverOfItsVersionWithItsToolsAndNoOperator() throws Exception {
    String image = Podman.driverImage();
    Podman.Result version = Podman.run("run", "--rm", "--network=none", image, "--version");
    assertThat(version.exit()).as(version.output()).isZero();
    assertThat(version.output())
        .as("its tag in a release is this version")
        .startsWith("thinvol " + DriverRelease.VERSION);
    assertThat(Podman.contents(image)).isEqualTo("bin\nthinvol-driver.jar\nthinvol-driver.jsa\n");
    Podman.Result classes =
        Podman.run(
            "run",
            "--rm",
            "--network=none",
            "--env=JAVA_OPTS=-Xlog:class+load=info",
            image,
            "--version");
    assertThat(classes.output())
        .as("the driver's classes come from the image's class data archive (docs/image.md)")
        .contains("io.thinvol.driver.cli.ThinvolCommand source: shared objects file (top)");
    for (String tool : List.of("losetup", "mkfs.ext4", "mkfs.xfs", "xfs_growfs", "fstrim")) {
      assertThat(Podman.has(image, tool)).as(tool).isTrue();
    }
    assertThat(Podman.has(image, "python3")).as("xfsprogs without xfs_scrub_all's").isFalse();
    assertThat(Podman.javaModules(image))
        .as("a runtime linked to the modules the jar uses")
        .contains("java.base", "jdk.httpserver", "jdk.crypto.ec", "jdk.unsupported")
        .doesNotContain("java.desktop", "java.compiler", "jdk.jshell");
  }

  @Test
  void thePreflightPassesInAPrivilegedContainerAndLeavesNothingOnTheHost(@TempDir Path dir)
      throws Exception {
    Path data = Files.createDirectories(dir.resolve("data"));
    // As an admin runs it on a node: root, privileged, the host's /dev and data dir.
    Podman.Result preflight =
        Podman.run(
            Duration.ofMinutes(5),
            List.of(
                "run",
                "--rm",
                "--privileged",
                "--user=0",
                "--network=none",
                "--volume=/dev:/dev",
                "--volume=" + data + ":" + data,
                Podman.driverImage(),
                "driver",
                "preflight",
                "--data-dir=" + data));
    System.out.println("preflight inside the container:\n" + preflight.output());
    assertThat(preflight.exit()).as(preflight.output()).isZero();
    assertThat(preflight.output())
        .contains(" 1. PASS host tools are installed", "PASS nothing left behind")
        .contains("preflight succeeded")
        .doesNotContain("FAIL", "SKIP", "|-INFO", "|-WARN");
    assertThat(HostLeftovers.under(dir)).isEmpty();
    try (var volumes = Files.list(data.resolve("volumes"))) {
      assertThat(volumes).isEmpty();
    }
  }

  @Test
  void theDaemonSetsDriverContainerServesItsSocketsAndHealthEndpoints(@TempDir Path host)
      throws Exception {
    StorageBackend backend = exampleBackend();
    Images images =
        Images.fromEnvironment(Map.of("RELATED_IMAGE_DRIVER", Podman.driverImage())::get);
    Settings settings =
        new Settings("thinvol-system", "quay.io/thinvol/thinvol:not-run-here", false, false)
            .withImages(images);
    PodSpec pod =
        NodeDaemonSetModel.desired(backend, settings, false).getSpec().getTemplate().getSpec();
    Container driver = pod.getContainers().get(0);
    assertThat(driver.getName()).isEqualTo("driver");
    assertThat(driver.getImage()).isEqualTo(Podman.driverImage());
    assertThat(driver.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    Path secret = Files.createDirectories(host.resolve("secret"));
    SelfSignedCertificate certificate =
        SelfSignedCertificate.create("driver", List.of("localhost"), Duration.ofHours(1));
    Files.writeString(secret.resolve("tls.crt"), certificate.certificatePem());
    Files.writeString(secret.resolve("tls.key"), certificate.privateKeyPem());
    // The node's file system under a directory of this test, shared so that the driver's
    // Bidirectional mounts propagate as on a node.
    Path root = Files.createDirectories(host.resolve("root"));
    String name = "thinvol-image-test-" + UUID.randomUUID();
    List<String> args = new ArrayList<>(List.of("run", "--detach", "--name=" + name));
    // A pod's own network namespace: the container's ports clash with nothing on this host.
    args.add("--network=none");
    args.addAll(
        PodmanArgs.of(
            pod,
            driver,
            driver.getImage(),
            Map.of(
                "spec.nodeName",
                "image-test-node",
                "metadata.namespace",
                "thinvol-system",
                "metadata.name",
                name),
            volume -> hostDir(volume, root, secret)));
    try (SharedMount shared = SharedMount.of(root)) {
      long start = System.nanoTime();
      Podman.run(Duration.ofMinutes(1), args).orFail("podman run " + args);
      try {
        String pid = Podman.run("inspect", "--format", "{{.State.Pid}}", name).output().strip();
        String ready = awaitHttp(pid, 9808, "/readyz", Duration.ofSeconds(60));
        System.out.printf(
            "driver container ready after %.1f s%n", (System.nanoTime() - start) / 1e9);
        assertThat(ready).startsWith("HTTP/1.1 200").endsWith("ok\n");
        assertThat(awaitHttp(pid, 9808, "/healthz", Duration.ofSeconds(5)))
            .startsWith("HTTP/1.1 200");
        assertThat(awaitHttp(pid, 9808, "/metrics", Duration.ofSeconds(5)))
            .startsWith("HTTP/1.1 200");
        Path sockets = root.resolve("var/lib/kubelet/plugins/local.thinvol.io");
        try (CsiClient csi = new CsiClient(sockets.resolve("csi.sock"));
            AddonsClient addons = new AddonsClient(sockets.resolve("csi-addons.sock"))) {
          assertThat(csi.identity().probe(ProbeRequest.getDefaultInstance()).getReady().getValue())
              .isTrue();
          assertThat(
                  addons.identity().getIdentity(GetIdentityRequest.getDefaultInstance()).getName())
              .isEqualTo("local.thinvol.io");
          assertThat(
                  csi.identity().getPluginInfo(GetPluginInfoRequest.getDefaultInstance()).getName())
              .isEqualTo("local.thinvol.io");
        }
        assertThat(awaitHttp(pid, 9070, null, Duration.ofSeconds(5))).isEqualTo("open\n");
        assertThat(handshake(pid, 9070, secret.resolve("tls.crt")))
            .as("the TLS port's handshake, verified against its certificate, offering gRPC's h2")
            .contains("CONNECTION ESTABLISHED", "Protocol version: TLSv1.3", "Verification: OK");
        String logs = Podman.run("logs", name).output();
        assertThat(logs).contains("serving on tls://:9070").doesNotContain("ERROR", "|-");
        Podman.Result stop = Podman.run("stop", "--time", "20", name);
        assertThat(stop.exit()).as(stop.output()).isZero();
        assertThat(Podman.run("inspect", "--format", "{{.State.ExitCode}}", name).output().strip())
            .as("stopped by SIGTERM, not killed")
            .isIn("0", "143");
      } finally {
        Podman.remove(name);
      }
    }
    assertThat(HostLeftovers.under(host)).isEmpty();
  }

  private static Path hostDir(Volume volume, Path root, Path secret) {
    if (volume.getSecret() != null) {
      return secret;
    }
    if (volume.getProjected() != null) {
      // The peer token: read only when a ModifyVolume is forwarded, which this test does not do.
      try {
        return Files.createDirectories(root.resolve("projected").resolve(volume.getName()));
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
    String path = volume.getHostPath().getPath();
    return path.equals("/dev") ? Path.of("/dev") : root.resolve(path.substring(1));
  }

  /** What {@code openssl s_client} says of a TLS handshake with a port of the container. */
  private static String handshake(String pid, int port, Path ca) throws Exception {
    Process process =
        new ProcessBuilder(
                "nsenter",
                "--target",
                pid,
                "--net",
                "openssl",
                "s_client",
                "-brief",
                "-connect",
                "127.0.0.1:" + port,
                "-alpn",
                "h2",
                "-CAfile",
                ca.toString())
            .redirectErrorStream(true)
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
            .start();
    String output = new String(process.getInputStream().readAllBytes());
    process.waitFor();
    return output;
  }

  /**
   * An HTTP GET inside the container's network namespace, as the kubelet's probes reach a pod,
   * retried until it answers; with no {@code path}, "open" once the port accepts a connection.
   */
  private static String awaitHttp(String pid, int port, String path, Duration timeout)
      throws Exception {
    String script =
        "exec 3<>/dev/tcp/127.0.0.1/"
            + port
            + (path == null
                ? " && echo open"
                : " && printf 'GET " + path + " HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3");
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      Process process =
          new ProcessBuilder("nsenter", "--target", pid, "--net", "bash", "-c", script)
              .redirectErrorStream(true)
              .start();
      String output = new String(process.getInputStream().readAllBytes()).replace("\r", "");
      if (process.waitFor() == 0 && !output.isEmpty()) {
        return output;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("nothing answers on port " + port + " " + path + ": " + output);
      }
      Thread.sleep(250);
    }
  }
}
