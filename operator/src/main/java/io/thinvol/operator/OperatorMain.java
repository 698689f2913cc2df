package io.thinvol.operator;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.thinvol.addons.call.DriverCalls;
import io.thinvol.addons.call.GrpcMoveCopier;
import io.thinvol.addons.call.GrpcReclaimCaller;
import io.thinvol.addons.call.ProjectedToken;
import io.thinvol.api.Durations;
import io.thinvol.operator.model.Images;
import io.thinvol.operator.model.Settings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * {@code operator}: runs against the in-cluster configuration, or the current kubeconfig context
 * when run from a workstation. Environment: {@code POD_NAMESPACE} (where the operator and the node
 * pods run), {@code THINVOL_OPERATOR_IMAGE} (the operator's own image; read from its pod, {@code
 * POD_NAME}, when unset), {@code THINVOL_HEALTH_PORT} (default 8081), {@code
 * THINVOL_LEADER_ELECTION} (default true), {@code THINVOL_ADDONS_TOKEN_FILE} and {@code
 * THINVOL_ADDONS_TOKEN_AUDIENCE} (the projected token sent to the drivers, and its audience, which
 * the drivers are told to require; defaults as the Deployment mounts it), {@code RELATED_IMAGE_*}
 * (the images of the node pods; see {@link Images}).
 */
public final class OperatorMain {

  private OperatorMain() {}

  public static void main(String[] args) throws Exception {
    Optional<String> namespaceEnv = env("POD_NAMESPACE");
    if (namespaceEnv.isEmpty()) {
      System.err.println(
          "thinvol operator: POD_NAMESPACE must be set to the operator's namespace (the"
              + " Deployment sets it from the downward API)");
      System.exit(2);
      return;
    }
    String namespace = namespaceEnv.get();
    // The namespaced informers watch the client's namespace: make it the operator's own even when
    // run from a workstation whose kubeconfig context points elsewhere.
    Config config = Config.autoConfigure(null);
    config.setNamespace(namespace);
    KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build();
    ClusterFacts facts;
    try {
      facts = ClusterFacts.of(client);
    } catch (KubernetesClientException e) {
      System.err.println(
          "thinvol operator: cannot reach the Kubernetes API at "
              + client.getMasterUrl()
              + " ("
              + rootCause(e)
              + "); check the kubeconfig context or the in-cluster ServiceAccount");
      System.exit(1);
      return;
    }
    String audience = env("THINVOL_ADDONS_TOKEN_AUDIENCE").orElse(ProjectedToken.DEFAULT_AUDIENCE);
    String operatorImage = ownImage(client, namespace);
    Settings settings =
        new Settings(
            namespace,
            operatorImage,
            facts.openShift(),
            facts.snapshotApi(),
            audience,
            facts.snapshotMetadataApi(),
            Images.fromEnvironment(System::getenv),
            facts.groupSnapshotApi(),
            facts.monitoringApi());
    Path tokenFile =
        env("THINVOL_ADDONS_TOKEN_FILE").map(Path::of).orElse(ProjectedToken.DEFAULT_FILE);
    // One set of channels to the driver pods and one token for reclaims and moves alike.
    DriverCalls driverCalls =
        new DriverCalls(client, namespace, new ProjectedToken(tokenFile, audience));
    GrpcReclaimCaller caller = new GrpcReclaimCaller(driverCalls);
    OperatorRunner runner =
        OperatorRunner.start(
            client,
            settings,
            Boolean.parseBoolean(env("THINVOL_LEADER_ELECTION").orElse("true")),
            Integer.parseInt(env("THINVOL_HEALTH_PORT").orElse("8081")),
            caller,
            new GrpcMoveCopier(driverCalls),
            overrider -> {});
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(() -> closeWithin(SHUTDOWN_BUDGET, runner, caller), "shutdown"));
  }

  /** Well inside the 10 s a container is given between SIGTERM and SIGKILL by default. */
  static final Duration SHUTDOWN_BUDGET = Duration.ofSeconds(8);

  /**
   * Closes what runs, but returns after {@code budget} even if closing hangs (an unreachable API
   * server): the JVM halts once its shutdown hooks return.
   */
  static void closeWithin(Duration budget, AutoCloseable... parts) {
    Thread closing =
        new Thread(
            () -> {
              for (AutoCloseable part : parts) {
                try {
                  part.close();
                } catch (Exception e) {
                  System.err.println("thinvol operator: while stopping: " + e);
                }
              }
            },
            "closing");
    closing.setDaemon(true);
    closing.start();
    try {
      closing.join(budget.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (closing.isAlive()) {
      System.err.println(
          "thinvol operator: not stopped within " + Durations.text(budget) + "; exiting anyway");
    }
  }

  /** The operator's image: set explicitly, or the image of its own pod's first container. */
  static String ownImage(KubernetesClient client, String namespace) {
    return env("THINVOL_OPERATOR_IMAGE")
        .orElseGet(
            () ->
                client
                    .pods()
                    .inNamespace(namespace)
                    .withName(required("POD_NAME"))
                    .require()
                    .getSpec()
                    .getContainers()
                    .get(0)
                    .getImage());
  }

  private static String rootCause(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null) {
      root = root.getCause();
    }
    return root.getClass().getSimpleName()
        + (root.getMessage() == null ? "" : ": " + root.getMessage());
  }

  private static Optional<String> env(String name) {
    return Optional.ofNullable(System.getenv(name)).filter(v -> !v.isBlank());
  }

  private static String required(String name) {
    return env(name)
        .orElseThrow(
            () ->
                new IllegalStateException(
                    name + " must be set (the Deployment sets it from the downward API)"));
  }
}
