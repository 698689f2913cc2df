package io.thinvol.addons.bench;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.storage.StorageClassBuilder;
import io.thinvol.addons.AddonsSettings;
import io.thinvol.addons.ClusterFixtures;
import io.thinvol.addons.cron.Stagger;
import io.thinvol.addons.schedule.SchedulePolicy;
import io.thinvol.api.BackendNames;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.testing.StrictApiServer;
import io.thinvol.testing.StrictCluster;
import io.thinvol.testing.TestCluster;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.IntStream;

/**
 * The addons' API load at scale, for bench/addons-scale.sh: the strict API server (with the
 * bundle's RBAC) holds N claims annotated with a reclaim schedule, bound to thinvol PVs spread over
 * M Node objects, and a Ready driver pod per node; the operator's side runs in a second process
 * ({@link ScaleOperator}). Once every claim is on its schedule, one full scheduled period is
 * measured: the operator's requests counted at the server by verb and resource, the runs and their
 * spread over the period ({@link RunSpread}), and the operator's heap after a GC.
 *
 * <p>Arguments: claims (5000), nodes (100), period in minutes (5; the schedule is every period, so
 * the stagger spreads the runs over the whole period). The operator's JVM flags come from the
 * system property {@code bench.operator.flags}.
 */
public final class AddonsScaleBenchmark {

  private static final String APPS = "apps";
  private static final String BACKEND = "local";

  /** Held: java.util.logging forgets the level of a logger nobody references. */
  private static final Logger MOCK_LOG = Logger.getLogger("io.fabric8.mockwebserver");

  private AddonsScaleBenchmark() {}

  public static void main(String[] args) throws Exception {
    int claims = args.length > 0 ? Integer.parseInt(args[0]) : 5000;
    int nodes = args.length > 1 ? Integer.parseInt(args[1]) : 100;
    int minutes = args.length > 2 ? Integer.parseInt(args[2]) : 5;
    // The mock server logs every request at INFO: thousands of lines a second at this scale.
    MOCK_LOG.setLevel(Level.WARNING);
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
      String[] heap = expect(said, "heap", 60_000).split(" ");
      System.out.printf("operator heap after GC: %s used, RSS %s%n", heap[1], heap[2]);
      List<String> calls = new ArrayList<>();
      for (String line = expect(said, "call", 60_000);
          !line.startsWith("calls");
          line = expect(said, "call", 60_000)) {
        calls.add(line.substring("call ".length()));
      }
      if (cluster.strict().isEmpty()) {
        System.out.println("requests: a real API server keeps no record here");
      } else {
        Map<String, Integer> byKind = new TreeMap<>();
        all.subList(first, all.size()).stream()
            .filter(d -> d.user().equals(TestCluster.OPERATOR))
            .forEach(d -> byKind.merge(kind(d), 1, Integer::sum));
        System.out.printf(
            "requests in one period (%d min): %d%n",
            minutes, byKind.values().stream().mapToInt(Integer::intValue).sum());
        byKind.forEach((kind, count) -> System.out.printf("  %-45s %d%n", kind, count));
      }
      System.out.println(
          RunSpread.of(calls, staggerMs(cluster, Duration.ofMillis(period)), from, period)
              .describe());
      in.println("stop");
      operator.waitFor(30, TimeUnit.SECONDS);
      operator.destroy();
    }
  }

  /** Verb and resource, and the answer's code when it was not a success (wasted requests). */
  private static String kind(StrictApiServer.Decision decision) {
    return decision.request().permission()
        + (decision.code() >= 300 ? " (" + decision.code() + ")" : "");
  }

  /** Each volume's stagger offset in a period, as the operator computes it from its claim's UID. */
  private static Map<String, Long> staggerMs(TestCluster cluster, Duration period) {
    Duration window = AddonsSettings.defaults(TestCluster.OPERATOR_NAMESPACE).staggerWindow();
    Map<String, Long> offsets = new HashMap<>();
    for (PersistentVolumeClaim claim :
        cluster.admin().persistentVolumeClaims().inNamespace(APPS).list().getItems()) {
      String volume = "vol-" + claim.getMetadata().getName().substring("data-".length());
      offsets.put(volume, Stagger.offset(claim.getMetadata().getUid(), period, window).toMillis());
    }
    return offsets;
  }

  private static List<StrictApiServer.Decision> requests(TestCluster cluster) {
    return cluster.decisions();
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
    cluster.namespace(TestCluster.OPERATOR_NAMESPACE);
    cluster.namespace(APPS);
    StorageBackend backend = new StorageBackend();
    backend.getMetadata().setName(BACKEND);
    create(cluster, backend);
    String driver = BackendNames.driver(BACKEND);
    create(
        cluster,
        new StorageClassBuilder()
            .withNewMetadata()
            .withName(BACKEND)
            .endMetadata()
            .withProvisioner(driver)
            .withVolumeBindingMode("WaitForFirstConsumer")
            .build());
    ExecutorService writers = Executors.newFixedThreadPool(2);
    for (int n = 0; n < nodes; n++) {
      String node = "node-" + n;
      String ip = "10.0." + (n / 250) + "." + (n % 250 + 1);
      writers.execute(
          () -> {
            create(
                cluster, new NodeBuilder().withNewMetadata().withName(node).endMetadata().build());
            create(
                cluster,
                ClusterFixtures.driverPod(TestCluster.OPERATOR_NAMESPACE, BACKEND, node, ip, 9070));
          });
    }
    IntStream.range(0, claims)
        .forEach(
            c ->
                writers.execute(
                    () -> {
                      String name = "data-" + c;
                      String pv = "pv-" + c;
                      create(
                          cluster,
                          ClusterFixtures.volume(
                              pv, driver, "vol-" + c, "node-" + (c % nodes), APPS, name));
                      PersistentVolumeClaim claim =
                          ClusterFixtures.boundClaim(APPS, name, BACKEND, pv);
                      claim.getMetadata().setAnnotations(Map.of(SchedulePolicy.SCHEDULE, schedule));
                      create(cluster, claim);
                    }));
    writers.shutdown();
    if (!writers.awaitTermination(30, TimeUnit.MINUTES)) {
      throw new IllegalStateException("seeding took over 30 minutes");
    }
  }

  /** As the admin: in the strict server's process when it is the mock, else over HTTP. */
  private static void create(TestCluster cluster, HasMetadata object) {
    if (cluster instanceof StrictCluster strict) {
      strict.createInProcess(object);
    } else {
      cluster.admin().resource(object).create();
    }
  }
}
