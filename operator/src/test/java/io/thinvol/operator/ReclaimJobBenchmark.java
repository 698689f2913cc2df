package io.thinvol.operator;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.thinvol.addons.call.GrpcReclaimCaller;
import io.thinvol.api.BackendNames;
import io.thinvol.api.v1alpha1.ReclaimSpaceJob;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.driver.host.ProcessCommandRunner;
import io.thinvol.operator.model.Settings;
import io.thinvol.testing.RepoFiles;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * For bench/reclaim-job-bench.sh: a ReclaimSpaceJob from creation to its result (operator, addons,
 * TLS, token, a real driver process, the mock API server) against a bare {@code fstrim} of the same
 * volume, alternating, each after the same amount of data was written and deleted. Prints the time
 * and bytes of each, their ratios, and where each job's time went ({@link ReclaimJobTrace}).
 */
public final class ReclaimJobBenchmark {

  private static final String NAMESPACE = "thinvol-system";

  private ReclaimJobBenchmark() {}

  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    long bytes = (args.length > 1 ? Long.parseLong(args[1]) : 256) << 20;
    Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
    ReclaimJobTrace trace = new ReclaimJobTrace();
    KubernetesMockServer server =
        new KubernetesMockServer(
            new Context(), new MockWebServer(), responses, trace.dispatcher(responses), false);
    server.init();
    ReviewedTokens.answer(server);
    try (KubernetesClient admin = server.createClient()) {
      // the operator starts the controllers of a kind beyond StorageBackend once discovery lists
      // it, and the mock's discovery lists a kind once its CRD is there
      RepoFiles.crds().forEach(crd -> admin.resource(crd).create());
    }
    try (KubernetesClient client = server.createClient();
        KubernetesClient operatorClient =
            new KubernetesClientBuilder()
                .withConfig(
                    new ConfigBuilder(client.getConfiguration()).withNamespace(NAMESPACE).build())
                .build();
        GrpcReclaimCaller caller =
            new GrpcReclaimCaller(client, NAMESPACE, () -> ReviewedTokens.OPERATOR_TOKEN);
        OperatorRunner operator =
            OperatorRunner.start(
                operatorClient,
                new Settings(NAMESPACE, "quay.io/thinvol/thinvol:0.1.0", false, false),
                false,
                -1,
                trace.timed(caller),
                MockClusterTest.noMoveCopies(),
                MockClusterTest.withoutServerSideApply())) {
      DriverOnHost.prepareCluster(client);
      client
          .resource(
              Serialization.unmarshal(
                  "apiVersion: thinvol.io/v1alpha1\nkind: StorageBackend\nmetadata:\n"
                      + "  name: local\nspec:\n  reclaimSpace:\n    timeout: 5m\n",
                  StorageBackend.class))
          .create();
      Secret tls = null;
      while (tls == null) {
        Thread.sleep(50);
        tls =
            client.secrets().inNamespace(NAMESPACE).withName(BackendNames.ADDONS_TLS_SECRET).get();
      }
      try (DriverOnHost host = DriverOnHost.start(client, NAMESPACE, "local", stored(tls))) {
        run(client, host, rounds, bytes, trace);
      }
    } finally {
      server.destroy();
    }
  }

  /**
   * The Secret as a real API server stores it: the operator writes {@code stringData}, which this
   * mock keeps as written instead of encoding it into {@code data}.
   */
  private static Secret stored(Secret written) {
    Map<String, String> data =
        new HashMap<>(Optional.ofNullable(written.getData()).orElse(Map.of()));
    Optional.ofNullable(written.getStringData())
        .orElse(Map.of())
        .forEach(
            (key, value) ->
                data.put(
                    key,
                    Base64.getEncoder().encodeToString(value.getBytes(StandardCharsets.UTF_8))));
    return new SecretBuilder(written).withData(data).withStringData(null).build();
  }

  private static void run(
      KubernetesClient client, DriverOnHost host, int rounds, long bytes, ReclaimJobTrace trace)
      throws Exception {
    List<Double> timeRatios = new ArrayList<>();
    List<Double> byteRatios = new ArrayList<>();
    List<List<Double>> parts = new ArrayList<>();
    for (int i = 0; i < ReclaimJobTrace.PARTS.length; i++) {
      parts.add(new ArrayList<>());
    }
    System.out.printf(
        "%d rounds, %d MiB written and deleted before each measurement%n", rounds, bytes >> 20);
    for (int round = 1; round <= rounds + 1; round++) {
      host.writeAndDelete(bytes);
      JobRun jobRun = job(client, "bench-" + round, trace);
      double jobMillis = jobRun.millis();
      long jobBytes = jobRun.bytes();

      host.writeAndDelete(bytes);
      long before = host.imageBytes();
      long rawStart = System.nanoTime();
      new ProcessCommandRunner()
          .run(Duration.ofMinutes(5), List.of("fstrim", host.staging().toString()));
      double rawMillis = (System.nanoTime() - rawStart) / 1e6;
      long rawBytes = before - host.imageBytes();
      if (round == 1) {
        System.out.printf("warm-up: job %.1f ms, fstrim %.1f ms%n", jobMillis, rawMillis);
        continue; // JIT, first connections and TokenReview
      }
      timeRatios.add(jobMillis / rawMillis);
      byteRatios.add((double) jobBytes / rawBytes);
      for (int i = 0; i < parts.size(); i++) {
        parts.get(i).add(jobRun.parts()[i]);
      }
      System.out.printf(
          "round %d: job %.1f ms %d bytes | fstrim %.1f ms %d bytes | time ratio %.2f, bytes"
              + " ratio %.3f%n  job: %s%n",
          round - 1,
          jobMillis,
          jobBytes,
          rawMillis,
          rawBytes,
          jobMillis / rawMillis,
          (double) jobBytes / rawBytes,
          describe(jobRun.parts()));
    }
    System.out.printf(
        "median: time ratio %.2f, bytes ratio %.3f (job from creation to its result vs bare"
            + " fstrim)%n",
        median(timeRatios), median(byteRatios));
    System.out.printf(
        "median job parts: %s%n",
        describe(parts.stream().mapToDouble(ReclaimJobBenchmark::median).toArray()));
  }

  private static String describe(double[] parts) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < parts.length; i++) {
      out.append(i == 0 ? "" : " + ")
          .append(String.format("%s %.1f", ReclaimJobTrace.PARTS[i], parts[i]));
    }
    return out.append(" ms").toString();
  }

  /**
   * A job's time from creation to its result, the bytes it reports reclaimed, and where the time
   * went ({@link ReclaimJobTrace#parts}).
   */
  private record JobRun(double millis, long bytes, double[] parts) {}

  /**
   * Creates a job and waits for its result, as {@code kubectl wait} does: on a watch, so that the
   * waiting adds no requests to the API server the operator works against.
   */
  private static JobRun job(KubernetesClient client, String name, ReclaimJobTrace trace)
      throws Exception {
    ReclaimSpaceJob job =
        Serialization.unmarshal(
            "apiVersion: thinvol.io/v1alpha1\nkind: ReclaimSpaceJob\nmetadata:\n  name: "
                + name
                + "\n  namespace: "
                + DriverOnHost.CLAIM_NAMESPACE
                + "\nspec:\n  target:\n    persistentVolumeClaim: "
                + DriverOnHost.CLAIM
                + "\n",
            ReclaimSpaceJob.class);
    CompletableFuture<ReclaimSpaceJob> result = new CompletableFuture<>();
    long[] seen = new long[1];
    try (Watch watch =
        client
            .resources(ReclaimSpaceJob.class)
            .inNamespace(DriverOnHost.CLAIM_NAMESPACE)
            .withName(name)
            .watch(
                new Watcher<>() {
                  @Override
                  public void eventReceived(Action action, ReclaimSpaceJob now) {
                    if (now.getStatus() != null && now.getStatus().getResult() != null) {
                      seen[0] = System.nanoTime();
                      result.complete(now);
                    }
                  }

                  @Override
                  public void onClose(WatcherException cause) {
                    result.completeExceptionally(cause);
                  }
                })) {
      trace.reset();
      long start = System.nanoTime();
      client.resource(job).create();
      ReclaimSpaceJob done;
      try {
        done = result.get(5, TimeUnit.MINUTES);
      } catch (TimeoutException e) {
        throw new IllegalStateException(
            "job " + name + " has no result after 5 minutes: see the operator's log (BENCH_LOG=1)",
            e);
      }
      double millis = (System.nanoTime() - start) / 1e6;
      if (!"Succeeded".equals(done.getStatus().getResult())) {
        throw new IllegalStateException("job " + name + ": " + done.getStatus().getMessage());
      }
      return new JobRun(
          millis,
          done.getStatus().getReclaimedSpace().getNumericalAmount().longValueExact(),
          trace.parts(start, seen[0]));
    }
  }

  private static double median(List<Double> values) {
    List<Double> sorted = values.stream().sorted().toList();
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }
}
