package io.thinvol.addons.bench;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.storage.StorageClassBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.thinvol.addons.ClusterFixtures;
import io.thinvol.addons.schedule.SchedulePolicy;
import io.thinvol.api.BackendNames;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.testing.StrictApiServer;
import io.thinvol.testing.TestCluster;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

/**
 * The addons' API load at scale, for bench/addons-scale.sh: the strict API server (with the
 * bundle's RBAC) holds N claims annotated with a reclaim schedule, bound to thinvol PVs spread over
 * M Node objects, and a Ready driver pod per node; the operator's side runs in a second process
 * ({@link ScaleOperator}). Once every claim is on its schedule, one full scheduled period is
 * measured: the operator's requests counted at the server by verb and resource, the runs and their
 * spread over the period, and the operator's heap after a GC.
 *
 * <p>Arguments: claims (5000), nodes (100), period in minutes (5; the schedule is every period, so
 * the stagger spreads the runs over the whole period). The operator's JVM flags come from the
 * system property {@code bench.operator.flags}.
 */
public final class AddonsScaleBenchmark {

  private static final String APPS = "apps";
  private static final String BACKEND = "local";

  private AddonsScaleBenchmark() {}

  public static void main(String[] args) throws Exception {
    int claims = args.length > 0 ? Integer.parseInt(args[0]) : 5000;
    int nodes = args.length > 1 ? Integer.parseInt(args[1]) : 100;
    int minutes = args.length > 2 ? Integer.parseInt(args[2]) : 5;
    try (TestCluster cluster = TestCluster.start()) {
      long seeding = System.nanoTime();
      seed(cluster, claims, nodes, "*/" + minutes + " * * * *");
      System.out.printf(
          "seeded %d claims, %d PVs, %d nodes, %d driver pods in %.0f s%n",
          claims, claims, nodes, nodes, (System.nanoTime() - seeding) / 1e9);
      Process operator = startOperator(cluster, claims);
      LinkedBlockingQueue<String> said = new LinkedBlockingQueue<>();
      Thread reader =
          new Thread(
              () -> {
                try (BufferedReader out =
                    new BufferedReader(
                        new InputStreamReader(operator.getInputStream(), StandardCharsets.UTF_8))) {
                  for (String line = out.readLine(); line != null; line = out.readLine()) {
                    said.add(line);
                  }
                } catch (java.io.IOException e) {
                  said.add("gone " + e);
                }
              });
      reader.setDaemon(true);
      reader.start();
      long started = System.nanoTime();
      expect(said, "ready", TimeUnit.MINUTES.toMillis(30));
      System.out.printf(
          "every claim on its schedule %.0f s after the operator started%n",
          (System.nanoTime() - started) / 1e9);
      long period = TimeUnit.MINUTES.toMillis(minutes);
      long from = (System.currentTimeMillis() + 5_000) / period * period + period;
      Thread.sleep(from - System.currentTimeMillis());
      int first = requests(cluster).size();
      Thread.sleep(from + period - System.currentTimeMillis());
      List<StrictApiServer.Decision> all = requests(cluster);
      PrintWriter in = new PrintWriter(operator.getOutputStream(), true, StandardCharsets.UTF_8);
      in.println("report " + from + " " + (from + period));
      System.out.println("operator " + expect(said, "heap", 60_000));
      System.out.println("drivers " + expect(said, "calls", 60_000));
      if (cluster.strict().isEmpty()) {
        System.out.println("requests: a real API server keeps no record here");
      } else {
        Map<String, Integer> byKind = new TreeMap<>();
        all.subList(first, all.size()).stream()
            .filter(d -> d.user().equals(TestCluster.OPERATOR))
            .forEach(d -> byKind.merge(d.request().permission(), 1, Integer::sum));
        System.out.printf(
            "requests in one period (%d min): %d%n",
            minutes, byKind.values().stream().mapToInt(Integer::intValue).sum());
        byKind.forEach((kind, count) -> System.out.printf("  %-45s %d%n", kind, count));
      }
      in.println("stop");
      operator.waitFor(30, TimeUnit.SECONDS);
      operator.destroy();
    }
  }

  private static List<StrictApiServer.Decision> requests(TestCluster cluster) {
    return cluster.strict().map(StrictApiServer::decisions).orElse(List.of());
  }

  private static String expect(LinkedBlockingQueue<String> said, String word, long millis)
      throws InterruptedException {
    long deadline = System.currentTimeMillis() + millis;
    while (System.currentTimeMillis() < deadline) {
      String line = said.poll(deadline - System.currentTimeMillis(), TimeUnit.MILLISECONDS);
      if (line != null && line.startsWith(word)) {
        return line;
      }
    }
    throw new IllegalStateException("the operator did not say " + word);
  }

  private static Process startOperator(TestCluster cluster, int claims) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElse("java"));
    for (String flag : System.getProperty("bench.operator.flags", "").split(" ")) {
      if (!flag.isBlank()) {
        command.add(flag);
      }
    }
    command.addAll(
        List.of(
            "-Dlogback.configurationFile=logback-bench.xml",
            "-cp",
            System.getProperty("java.class.path"),
            ScaleOperator.class.getName(),
            cluster.admin().getConfiguration().getMasterUrl(),
            Integer.toString(claims)));
    return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
  }

  private static void seed(TestCluster cluster, int claims, int nodes, String schedule)
      throws InterruptedException {
    KubernetesClient admin = cluster.admin();
    cluster.namespace(TestCluster.OPERATOR_NAMESPACE);
    cluster.namespace(APPS);
    StorageBackend backend = new StorageBackend();
    backend.getMetadata().setName(BACKEND);
    admin.resource(backend).create();
    String driver = BackendNames.driver(BACKEND);
    admin
        .resource(
            new StorageClassBuilder()
                .withNewMetadata()
                .withName(BACKEND)
                .endMetadata()
                .withProvisioner(driver)
                .withVolumeBindingMode("WaitForFirstConsumer")
                .build())
        .create();
    ExecutorService writers = Executors.newFixedThreadPool(4);
    for (int n = 0; n < nodes; n++) {
      String node = "node-" + n;
      String ip = "10.0." + (n / 250) + "." + (n % 250 + 1);
      writers.execute(
          () -> {
            admin
                .resource(new NodeBuilder().withNewMetadata().withName(node).endMetadata().build())
                .create();
            admin
                .resource(
                    ClusterFixtures.driverPod(
                        TestCluster.OPERATOR_NAMESPACE, BACKEND, node, ip, 9070))
                .create();
          });
    }
    IntStream.range(0, claims)
        .forEach(
            c ->
                writers.execute(
                    () -> {
                      String name = "data-" + c;
                      String pv = "pv-" + c;
                      admin
                          .resource(
                              ClusterFixtures.volume(
                                  pv, driver, "vol-" + c, "node-" + (c % nodes), APPS, name))
                          .create();
                      PersistentVolumeClaim claim =
                          ClusterFixtures.boundClaim(APPS, name, BACKEND, pv);
                      claim.getMetadata().setAnnotations(Map.of(SchedulePolicy.SCHEDULE, schedule));
                      admin.resource(claim).create();
                    }));
    writers.shutdown();
    if (!writers.awaitTermination(30, TimeUnit.MINUTES)) {
      throw new IllegalStateException("seeding took over 30 minutes");
    }
  }
}
