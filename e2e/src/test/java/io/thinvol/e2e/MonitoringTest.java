package io.thinvol.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.e2e.support.Claims;
import io.thinvol.e2e.support.Names;
import io.thinvol.e2e.support.NodePods;
import io.thinvol.e2e.support.Prometheus;
import io.thinvol.e2e.support.SmallDisk;
import io.thinvol.e2e.support.Teardown;
import io.thinvol.e2e.support.ThinvolRules;
import io.thinvol.e2e.support.Waits;
import io.thinvol.e2e.support.World;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * A real Prometheus (docs/monitoring.md) scraping a node pod and the operator with the labels the
 * PodMonitors give, and evaluating the operator's alert rules: a backend whose data dir is a small
 * disk of its own is filled, and its fill alerts fire.
 */
@Order(9)
class MonitoringTest extends E2eSteps {

  private static final int DISK_MIB = 256;
  private static final String CLAIM = "fill";
  private static final String FILLER = "filler";
  // More than the disk: thin provisioning (overprovisionRatio 2) lets the claim outgrow it.
  private static final String CLAIM_SIZE = "320Mi";
  // Filled until this much is left: under the driver's "full" (3 % of the disk, 7.7 MiB here),
  // above what the images' own metadata may still need, so that no write in the pod fails.
  private static final long LEFT_FREE = 4 * MIB;
  private static final int LARGEST_CHUNK_MIB = 32;
  private static final Duration READY_LIMIT = Duration.ofMinutes(4);
  private static final Duration SCRAPE_LIMIT = Duration.ofSeconds(90);
  // The fill alerts with a `for` up to this are waited for until they fire, the others until
  // they are pending.
  private static final Duration LONGEST_FOR_WAITED = Duration.ofMinutes(2);
  // Beyond that: the driver's statfs (every 30 s), a scrape, two evaluations.
  private static final Duration FIRING_MARGIN = Duration.ofMinutes(2);
  // The driver's and the operator's /metrics (docs/driver.md, docs/operator.md).
  private static final int NODE_PORT = 9808;
  private static final int OPERATOR_PORT = 8081;
  private static final String NODE_JOB = "thinvol-node";
  private static final String OPERATOR_JOB = "thinvol-operator";

  private static Prometheus prometheus;
  private static List<Map<String, Object>> groups;

  @Test
  @Order(1)
  @DisplayName("a real Prometheus scrapes the node pod and the operator")
  void scrape() {
    world().require("operator.deployment");
    assertThat(Prometheus.installed())
        .as("prometheus is not installed: apt-get install prometheus (Debian's package)")
        .isTrue();
    new SmallDisk(Names.SMALL_DATA_DIR).create(DISK_MIB);
    long start = System.nanoTime();
    kube()
        .apply(
            "storagebackend-small.yaml",
            vars(
                "name",
                Names.SMALL_BACKEND,
                "dataDir",
                Names.SMALL_DATA_DIR.toString(),
                "storageClass",
                Names.SMALL_CLASS,
                "node",
                world().settings().hostNode()));
    awaitBackendReady(Names.SMALL_BACKEND, READY_LIMIT);
    String readyIn = InstallTest.seconds(start);
    Pod node = NodePods.onHost(client(), Names.SMALL_BACKEND);
    List<Pod> operators =
        client()
            .pods()
            .inNamespace(Names.OPERATOR)
            .withLabel("app.kubernetes.io/name", OPERATOR_JOB)
            .list()
            .getItems()
            .stream()
            .filter(p -> p.getStatus().getPodIP() != null)
            .toList();
    assertThat(operators).as("the operator's pods with an IP").isNotEmpty();
    List<Prometheus.Target> operatorTargets =
        operators.stream().map(p -> target(p, OPERATOR_PORT, Map.of())).toList();
    List<Prometheus.Job> jobs =
        List.of(
            new Prometheus.Job(
                NODE_JOB,
                List.of(
                    target(
                        node,
                        NODE_PORT,
                        Map.of(
                            "backend",
                            Names.SMALL_BACKEND,
                            "node",
                            node.getSpec().getNodeName())))),
            new Prometheus.Job(OPERATOR_JOB, operatorTargets));
    groups =
        ThinvolRules.groups(
            client().resources(StorageBackend.class).withName(Names.SMALL_BACKEND).get());

    long started = System.nanoTime();
    prometheus =
        Prometheus.start(jobs, groups, world().settings().reports().resolve("prometheus.log"));
    // Prometheus runs on the host: the pods' IPs are on the kit's bridge, whose gateway the host
    // is.
    Waits.until(
        "Prometheus' targets of both jobs to be up",
        SCRAPE_LIMIT,
        () ->
            Optional.of(prometheus.targets())
                .filter(t -> t.size() == 1 + operatorTargets.size())
                .filter(t -> t.stream().allMatch(target -> "up".equals(target.get("health")))),
        () -> prometheus.targets());
    String upIn = InstallTest.seconds(started);
    String selector = "{job=\"" + NODE_JOB + "\",backend=\"" + Names.SMALL_BACKEND + "\"}";
    assertThat(prometheus.query("thinvol_data_dir_available_bytes" + selector))
        .as("the driver's data dir metric, scraped")
        .isNotEmpty();
    assertThat(
            prometheus.query(
                "thinvol_operator_reconciliations_total{job=\"" + OPERATOR_JOB + "\"} > 0"))
        .as("the operator's reconciliations, scraped")
        .isNotEmpty();
    world().remember("monitoring.prometheus", "started");
    figure(
        "backend "
            + Names.SMALL_BACKEND
            + " on a "
            + DISK_MIB
            + " MiB disk Ready in "
            + readyIn
            + "; both jobs' targets up "
            + upIn
            + " after Prometheus' start; "
            + ThinvolRules.alerts(groups).size()
            + " alerting rules loaded");
  }

  @Test
  @Order(2)
  @DisplayName("the small data dir filled: its fill alerts fire")
  void fill() {
    world().require("monitoring.prometheus");
    List<ThinvolRules.Alert> alerts = ThinvolRules.fillAlerts(groups);
    assertThat(alerts)
        .as(
            "the rules lack a data dir fill alert: none of AlertRules.groups("
                + Names.SMALL_BACKEND
                + ") has an expression on thinvol_data_dir_full or"
                + " thinvol_data_dir_available_bytes")
        .isNotEmpty();
    List<String> names = alerts.stream().map(ThinvolRules.Alert::name).toList();
    // Those that fire within minutes are waited for; the others' `for` is promtool's to check.
    List<String> firing =
        alerts.stream()
            .filter(a -> a.pendingFor().compareTo(LONGEST_FOR_WAITED) <= 0)
            .map(ThinvolRules.Alert::name)
            .toList();
    assertThat(firing)
        .as("fill alerts " + names + " that fire within " + LONGEST_FOR_WAITED + " of a full disk")
        .isNotEmpty();
    assertThat(active(names)).as("fill alerts active before the fill").isEmpty();

    claims().create(CLAIM, Claims.Spec.filesystem(Names.SMALL_CLASS, CLAIM_SIZE));
    pods().mounting(FILLER, Map.of(CLAIM, "/data"));
    SmallDisk disk = new SmallDisk(Names.SMALL_DATA_DIR);
    long fillStart = System.nanoTime();
    int written = fillUntilAlmostFull(disk);
    long filled = System.nanoTime();
    SmallDisk.Usage usage = disk.usage();

    Map<String, String> activeAfter = new TreeMap<>();
    Map<String, String> firedAfter = new TreeMap<>();
    try {
      Waits.untilTrue(
          "the fill alerts "
              + names
              + " to be active for backend "
              + Names.SMALL_BACKEND
              + ", and "
              + firing
              + " firing",
          LONGEST_FOR_WAITED.plus(FIRING_MARGIN),
          () -> {
            for (Map<String, Object> alert : active(names)) {
              activeAfter.putIfAbsent(alertName(alert), InstallTest.seconds(filled));
              if ("firing".equals(alert.get("state"))) {
                firedAfter.putIfAbsent(alertName(alert), InstallTest.seconds(filled));
              }
            }
            return activeAfter.keySet().containsAll(names)
                && firedAfter.keySet().containsAll(firing);
          });
    } finally {
      figure(
          String.format(
              Locale.ROOT,
              "%d MiB written in %s: %.1f %% used, %.1f MiB free; after the fill, active: %s,"
                  + " firing: %s",
              written,
              InstallTest.seconds(fillStart),
              100 * usage.usedFraction(),
              usage.available() / (double) MIB,
              activeAfter,
              firedAfter));
    }
    String node = NodePods.onHost(client(), Names.SMALL_BACKEND).getSpec().getNodeName();
    assertThat(active(names)).allSatisfy(a -> assertThat(labels(a)).containsEntry("node", node));
  }

  /**
   * Writes random data into the claim in chunks, each flushed to the disk, until only {@link
   * #LEFT_FREE} is left on the host's filesystem; the MiB written.
   */
  private static int fillUntilAlmostFull(SmallDisk disk) {
    int written = 0;
    for (int chunk = 0; ; chunk++) {
      long spare = (disk.usage().available() - LEFT_FREE) / MIB;
      if (spare < 1) {
        return written;
      }
      int mib = (int) Math.min(spare, LARGEST_CHUNK_MIB);
      assertThat(written + mib)
          .as("MiB written into a claim of " + CLAIM_SIZE + " on a disk of " + DISK_MIB + " MiB")
          .isLessThan(2 * DISK_MIB);
      pods()
          .sh(
              FILLER,
              "dd if=/dev/urandom of=/data/chunk-"
                  + chunk
                  + " bs=1M count="
                  + mib
                  + " conv=fsync 2>/dev/null");
      written += mib;
    }
  }

  /** The active alerts of these names for the small backend. */
  private static List<Map<String, Object>> active(List<String> names) {
    return prometheus.alerts().stream()
        .filter(a -> names.contains(alertName(a)))
        .filter(a -> Names.SMALL_BACKEND.equals(labels(a).get("backend")))
        .toList();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> labels(Map<String, Object> alert) {
    return (Map<String, Object>) alert.get("labels");
  }

  private static String alertName(Map<String, Object> alert) {
    return String.valueOf(labels(alert).get("alertname"));
  }

  private static Prometheus.Target target(Pod pod, int port, Map<String, String> labels) {
    Map<String, String> all = new TreeMap<>(labels);
    all.put("namespace", pod.getMetadata().getNamespace());
    all.put("pod", pod.getMetadata().getName());
    return new Prometheus.Target(pod.getStatus().getPodIP() + ":" + port, all);
  }

  /** Prometheus stopped, and the backend, its claim and its disk removed, whatever happened. */
  @AfterAll
  static void cleanUp() {
    if (prometheus != null) {
      prometheus.close();
      prometheus = null;
    }
    if (World.current() != null) {
      new Teardown(World.current())
          .backendOnSmallDisk(
              Names.SMALL_BACKEND, Names.SMALL_CLASS, Names.SMALL_DRIVER, Names.SMALL_DATA_DIR);
    }
  }
}
