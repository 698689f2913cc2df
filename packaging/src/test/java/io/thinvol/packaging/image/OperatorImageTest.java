package io.thinvol.packaging.image;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.thinvol.api.BackendNames;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.DriverRelease;
import io.thinvol.operator.model.OperatorRbac;
import io.thinvol.packaging.OperatorDeployment;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator from the built image, as the CSV's Deployment runs it (its container and pod spec
 * from the same model: user 65532 from the image, read-only root file system, no capabilities, its
 * env, /tmp as an emptyDir) with a ServiceAccount token and CA mounted where the kubelet puts them,
 * against an API server on a host port: it takes its lease, reconciles a StorageBackend and becomes
 * ready. The container shares the host's network to reach the server on 127.0.0.1, so its health
 * port is a free one instead of the Deployment's 8081.
 */
@EnabledIfSystemProperty(named = Podman.IMAGE_PROPERTY, matches = ".+")
class OperatorImageTest {

  private static final String NAMESPACE = "thinvol-system";

  @Test
  void theOperatorTakesItsLeaseReconcilesABackendAndBecomesReady(@TempDir Path dir)
      throws Exception {
    String podName = "thinvol-operator-" + UUID.randomUUID().toString().substring(0, 8);
    String image = Podman.image();
    PodSpec pod = OperatorDeployment.spec(image).getTemplate().getSpec();
    assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
    assertThat(Podman.run("image", "inspect", "--format", "{{.Config.User}}", image).output())
        .as("runAsNonRoot: the image's own user")
        .startsWith("65532");
    int healthPort = freePort();
    Container operator =
        new ContainerBuilder(pod.getContainers().get(0))
            .editMatchingEnv(e -> e.getName().equals("THINVOL_HEALTH_PORT"))
            .withValue(String.valueOf(healthPort))
            .endEnv()
            .build();
    List<PolicyRule> rbac = new ArrayList<>(OperatorRbac.clusterRules(false));
    rbac.addAll(OperatorRbac.namespaceRules());
    try (ApiServerFixture server = new ApiServerFixture(rbac);
        KubernetesClient client = server.client(NAMESPACE)) {
      seed(client, podName, image);
      Path serviceAccount = serviceAccount(dir, server);
      List<String> args =
          new ArrayList<>(
              List.of(
                  "run",
                  "--detach",
                  "--name=" + podName,
                  "--hostname=" + podName,
                  "--network=host",
                  "--env=KUBERNETES_SERVICE_HOST=localhost",
                  "--env=KUBERNETES_SERVICE_PORT=" + server.port(),
                  "--volume="
                      + serviceAccount
                      + ":/var/run/secrets/kubernetes.io/serviceaccount:ro"));
      args.addAll(
          PodmanArgs.of(
              pod,
              operator,
              image,
              Map.of("metadata.namespace", NAMESPACE, "metadata.name", podName),
              volume -> addonsToken(dir, volume)));
      long start = System.nanoTime();
      Podman.run(Duration.ofMinutes(1), args).orFail("podman run " + args);
      try {
        awaitReady(healthPort, podName);
        System.out.printf(
            "operator container ready after %.1f s%n", (System.nanoTime() - start) / 1e9);
        Lease lease =
            await(
                () -> client.resources(Lease.class).withName("thinvol-operator").get(), "a lease");
        assertThat(lease.getSpec().getHolderIdentity()).isEqualTo(podName);
        StorageBackend backend =
            await(
                () -> {
                  StorageBackend b = client.resources(StorageBackend.class).withName("local").get();
                  return b.getStatus() != null && b.getStatus().getObservedGeneration() != null
                      ? b
                      : null;
                },
                "the StorageBackend's status");
        assertThat(backend.getStatus().getDriverName()).isEqualTo("local.thinvol.io");
        DaemonSet nodes =
            client.apps().daemonSets().withName(BackendNames.nodeDaemonSet("local")).get();
        assertThat(nodes.getSpec().getTemplate().getSpec().getContainers().get(0).getImage())
            .as("the driver runs from its own image, the Deployment's RELATED_IMAGE_DRIVER")
            .isEqualTo(DriverRelease.IMAGE)
            .isNotEqualTo(image);
        String logs = Podman.run("logs", podName).output();
        assertThat(logs).doesNotContain("ERROR", "Exception", "|-INFO", "|-WARN");
      } finally {
        Podman.remove(podName);
      }
    }
  }

  @Test
  void theImageCarriesTheOperatorAloneWithoutTheDriversTools() throws Exception {
    String image = Podman.image();
    assertThat(Podman.contents(image)).isEqualTo("bin\nthinvol-operator.jar\n");
    assertThat(Podman.has(image, "java")).isTrue();
    assertThat(Podman.has(image, "mkfs.xfs")).as("xfsprogs is the driver's").isFalse();
    assertThat(Podman.has(image, "python3")).as("no recommended packages").isFalse();
    assertThat(Podman.javaModules(image))
        .as("a runtime linked to the modules the jar uses")
        .contains("java.base", "java.net.http", "jdk.crypto.ec", "jdk.unsupported")
        .doesNotContain("java.desktop", "java.compiler", "jdk.jshell");
  }

  /** What a cluster has before the operator starts: CRDs, its namespace and its own pod. */
  private static void seed(KubernetesClient client, String podName, String image)
      throws IOException {
    try (Stream<Path> crds = Files.list(Podman.ROOT.resolve("crds"))) {
      for (Path crd : crds.filter(p -> p.toString().endsWith(".yml")).toList()) {
        try (var in = Files.newInputStream(crd)) {
          client.load(in).items().forEach(item -> client.resource(item).create());
        }
      }
    }
    client
        .namespaces()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build())
        .create();
    client
        .pods()
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName(podName)
                .withNamespace(NAMESPACE)
                .endMetadata()
                .withSpec(OperatorDeployment.spec(image).getTemplate().getSpec())
                .build())
        .create();
    HasMetadata backend = DriverImageTest.exampleBackend();
    client.resource(backend).create();
  }

  /**
   * The projected token the addons send to drivers (no driver is called here: any content will do),
   * readable by the container's user as the kubelet mounts it.
   */
  private static Path addonsToken(Path dir, Volume volume) {
    if (volume.getProjected() == null) {
      throw new IllegalArgumentException("the operator mounts only an emptyDir and its token");
    }
    try {
      Path tokenDir = Files.createDirectories(dir.resolve(volume.getName()));
      for (var source : volume.getProjected().getSources()) {
        Path token = tokenDir.resolve(source.getServiceAccountToken().getPath());
        Files.writeString(token, "image-test-addons-token");
        Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-r--r--"));
      }
      Files.setPosixFilePermissions(tokenDir, PosixFilePermissions.fromString("rwxr-xr-x"));
      return tokenDir;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** token, ca.crt and namespace, readable by the container's user as the kubelet mounts them. */
  private static Path serviceAccount(Path dir, ApiServerFixture server) throws IOException {
    Path sa = Files.createDirectory(dir.resolve("serviceaccount"));
    Files.writeString(sa.resolve("token"), "image-test-token");
    Files.copy(server.certificate(), sa.resolve("ca.crt"));
    Files.writeString(sa.resolve("namespace"), NAMESPACE);
    for (Path p : List.of(sa.resolve("token"), sa.resolve("ca.crt"), sa.resolve("namespace"))) {
      Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-r--r--"));
    }
    Files.setPosixFilePermissions(sa, PosixFilePermissions.fromString("rwxr-xr-x"));
    return sa;
  }

  private static void awaitReady(int port, String container) throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    HttpRequest readyz =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz"))
            .timeout(Duration.ofSeconds(2))
            .build();
    long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    while (true) {
      try {
        if (http.send(readyz, HttpResponse.BodyHandlers.ofString()).statusCode() == 200) {
          return;
        }
      } catch (IOException notYet) {
        // not listening yet
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            "/readyz never answered 200: " + Podman.run("logs", container).output());
      }
      Thread.sleep(250);
    }
  }

  private static <T> T await(Supplier<T> value, String what) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    T found;
    while ((found = value.get()) == null) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no " + what + " after 60 s");
      }
      Thread.sleep(250);
    }
    return found;
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
