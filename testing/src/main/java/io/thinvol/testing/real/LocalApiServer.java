package io.thinvol.testing.real;

import io.fabric8.kubeapitest.cert.CertManager;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A kube-apiserver and its etcd, started by this JVM, listening on loopback only, with their data,
 * certificates and logs in a {@link RunDirectory}. Nothing of it outlives the JVM: {@link #close}
 * (also from a shutdown hook) stops both and removes the directory; if the JVM is killed, the
 * kernel kills both (their parent-death signal, set with util-linux {@code setpriv} where present),
 * and the next start removes the directory ({@link RunDirectory#sweepStale}).
 *
 * <p>The server runs RBAC authorisation and the default admission plugins plus
 * OwnerReferencesPermissionEnforcement (as OpenShift and the kit's cluster), without the
 * ServiceAccount plugin (no controller manager makes the token Secrets it would ask for), and
 * writes an {@link AuditLog} of every resource request.
 */
public final class LocalApiServer implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(LocalApiServer.class);
  private static final Path SETPRIV = Path.of("/usr/bin/setpriv");
  private static final Duration STARTUP = Duration.ofSeconds(180);
  private static final Duration STOP = Duration.ofSeconds(10);
  private static final int ATTEMPTS = 3;

  /**
   * The parent-death signal reaches a child when the thread that started it ends: every process is
   * started from this one thread, which lives as long as the JVM.
   */
  private static final ExecutorService LAUNCHER =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread thread = new Thread(r, "kube-apiserver-launcher");
            thread.setDaemon(true);
            return thread;
          });

  private final RunDirectory run;
  private final AuditLog auditLog;
  private final List<Process> processes = new ArrayList<>();
  private Config config;

  private LocalApiServer(RunDirectory run) {
    this.run = run;
    this.auditLog = new AuditLog(run.path().resolve("audit.log"));
  }

  /** The server's record of every resource request. */
  public AuditLog auditLog() {
    return auditLog;
  }

  /**
   * Starts etcd and kube-apiserver and waits until the server is ready; first removes the runs of
   * JVMs that have ended.
   */
  public static LocalApiServer start(Path apiServerBinary, Path etcdBinary) {
    Path parent = Path.of(System.getProperty("java.io.tmpdir"));
    RunDirectory.sweepStale(parent);
    for (int attempt = 1; ; attempt++) {
      LocalApiServer server = new LocalApiServer(RunDirectory.create(parent));
      try {
        server.launch(apiServerBinary, etcdBinary);
        return server;
      } catch (RuntimeException e) {
        String logs = server.logTail();
        server.close();
        if (attempt == ATTEMPTS) {
          throw new IllegalStateException(
              "kube-apiserver did not become ready (" + e.getMessage() + "); its logs:\n" + logs,
              e);
        }
        // A free port taken by another program between the check and the bind: new ports.
        log.warn("kube-apiserver did not start ({}); trying again", e.getMessage());
      }
    }
  }

  /** The admin's configuration (client certificate of group system:masters). */
  public Config config() {
    return new ConfigBuilder(config).build();
  }

  /** The directory of this run (etcd data, certificates, logs). */
  public Path directory() {
    return run.path();
  }

  private void launch(Path apiServerBinary, Path etcdBinary) {
    Path dir = run.path();
    CertManager certificates = new CertManager(dir.resolve("certs").toString());
    mkdirs(dir.resolve("certs"));
    certificates.createCertificatesIfNeeded();
    int etcdPort = freePort();
    int peerPort = freePort();
    int apiPort = freePort();
    Path policy = dir.resolve("audit-policy.yaml");
    write(policy, AuditLog.POLICY);
    String etcdUrl = "http://127.0.0.1:" + etcdPort;
    String peerUrl = "http://127.0.0.1:" + peerPort;
    spawn(
        "etcd",
        List.of(
            etcdBinary.toString(),
            "--name=thinvol-test",
            "--data-dir=" + dir.resolve("etcd"),
            "--listen-client-urls=" + etcdUrl,
            "--advertise-client-urls=" + etcdUrl,
            "--listen-peer-urls=" + peerUrl,
            "--initial-advertise-peer-urls=" + peerUrl,
            "--initial-cluster=thinvol-test=" + peerUrl,
            // A test cluster's data is thrown away: no fsync, on a disk shared with builds.
            "--unsafe-no-fsync=true",
            "--log-level=warn"));
    spawn(
        "kube-apiserver",
        List.of(
            apiServerBinary.toString(),
            "--etcd-servers=" + etcdUrl,
            "--bind-address=127.0.0.1",
            "--advertise-address=127.0.0.1",
            "--secure-port=" + apiPort,
            "--cert-dir=" + dir.resolve("certs"),
            "--tls-cert-file=" + certificates.getAPIServerCertPath(),
            "--tls-private-key-file=" + certificates.getAPIServerKeyPath(),
            "--client-ca-file=" + certificates.getClientCertPath(),
            "--authorization-mode=RBAC",
            "--service-account-issuer=https://kubernetes.default.svc",
            "--service-account-key-file=" + certificates.getAPIServerKeyPath(),
            "--service-account-signing-key-file=" + certificates.getAPIServerKeyPath(),
            "--service-cluster-ip-range=10.0.0.0/24",
            "--disable-admission-plugins=ServiceAccount",
            "--enable-admission-plugins=OwnerReferencesPermissionEnforcement",
            "--allow-privileged=true",
            "--profiling=false",
            "--audit-policy-file=" + policy,
            "--audit-log-path=" + auditLog.file(),
            "--audit-log-mode=blocking"));
    config =
        new ConfigBuilder(Config.empty())
            .withMasterUrl("https://127.0.0.1:" + apiPort)
            .withCaCertFile(certificates.getAPIServerCertPath())
            .withClientCertFile(certificates.getClientCertPath())
            .withClientKeyFile(certificates.getClientKeyPath())
            .withRequestTimeout(30_000)
            .build();
    awaitReady();
  }

  private void spawn(String name, List<String> command) {
    List<String> full = new ArrayList<>();
    if (Files.isExecutable(SETPRIV)) {
      full.addAll(List.of(SETPRIV.toString(), "--pdeathsig", "KILL", "--"));
    }
    full.addAll(command);
    Path logFile = run.path().resolve(name + ".log");
    try {
      Process process =
          LAUNCHER
              .submit(
                  () ->
                      new ProcessBuilder(full)
                          .redirectErrorStream(true)
                          .redirectOutput(logFile.toFile())
                          .start())
              .get();
      processes.add(process);
      run.recordChild(name, process.toHandle());
    } catch (ExecutionException e) {
      throw new IllegalStateException("cannot start " + command.get(0), e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted starting " + name, e);
    }
  }

  private void awaitReady() {
    long deadline = System.nanoTime() + STARTUP.toNanos();
    try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build()) {
      while (true) {
        for (Process process : processes) {
          if (!process.isAlive()) {
            throw new IllegalStateException(
                process.info().command().orElse("a process") + " exited: " + process.exitValue());
          }
        }
        try {
          if ("ok".equals(client.raw("/readyz"))
              && client.namespaces().withName("default").get() != null) {
            return;
          }
        } catch (RuntimeException notYet) {
          // not listening yet, or not ready
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("not ready within " + STARTUP.toSeconds() + " s");
        }
        Pause.of(Duration.ofMillis(200), "waiting for the API server to be ready");
      }
    }
  }

  /** Stops kube-apiserver, then etcd, and removes the run directory. */
  @Override
  public synchronized void close() {
    for (int i = processes.size() - 1; i >= 0; i--) {
      stop(processes.get(i));
    }
    processes.clear();
    run.delete();
  }

  private static void stop(Process process) {
    process.destroy();
    try {
      if (!process.waitFor(STOP.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly().waitFor();
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  private String logTail() {
    StringBuilder tail = new StringBuilder();
    for (String name : List.of("etcd", "kube-apiserver")) {
      Path file = run.path().resolve(name + ".log");
      try {
        List<String> lines = Files.exists(file) ? Files.readAllLines(file) : List.of();
        tail.append("--- ").append(name).append('\n');
        lines
            .subList(Math.max(0, lines.size() - 20), lines.size())
            .forEach(l -> tail.append(l).append('\n'));
      } catch (IOException e) {
        tail.append("(cannot read ").append(file).append(")\n");
      }
    }
    return tail.toString();
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void write(Path file, String text) {
    try {
      Files.writeString(file, text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void mkdirs(Path dir) {
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
