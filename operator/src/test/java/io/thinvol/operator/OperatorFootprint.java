package io.thinvol.operator;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimStatusBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.thinvol.addons.schedule.SchedulePolicy;
import io.thinvol.api.v1alpha1.ReclaimSpaceCronJob;
import io.thinvol.api.v1alpha1.ReclaimSpaceJob;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.Settings;
import io.thinvol.testing.RepoFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The operator's memory with many backends and claims, for bench/operator-footprint.sh. Two
 * processes so that the figure is the operator's alone: {@code server <port>} runs the mock API
 * server (CRUD), {@code operator <url> <backends> <claims> [<movable claims> <moves>]} seeds it,
 * runs the operator until every backend has a status, the moves (if any) are in flight and one
 * deletion has listed the claims, then prints its RSS. The script runs it twice for the memory per
 * move, with the same movable claims and 0 or N moves ({@link MoveFootprintWorld}).
 */
public final class OperatorFootprint {

  private OperatorFootprint() {}

  private static long scheduledVolumes(OperatorRunner operator) {
    return operator
        .addons()
        .metrics()
        .render()
        .lines()
        .filter(l -> l.startsWith("thinvol_reclaimspace_scheduled_volumes "))
        .mapToLong(l -> (long) Double.parseDouble(l.substring(l.indexOf(' ') + 1)))
        .findFirst()
        .orElse(0);
  }

  public static void main(String[] args) throws Exception {
    if (args[0].equals("server")) {
      KubernetesMockServer server =
          new KubernetesMockServer(
              new Context(),
              new MockWebServer(),
              new HashMap<>(),
              new KubernetesCrudDispatcher(),
              false);
      server.init(java.net.InetAddress.getLoopbackAddress(), Integer.parseInt(args[1]));
      try (KubernetesClient admin = server.createClient()) {
        // the operator starts the controllers of a kind beyond StorageBackend once discovery
        // lists it, and the mock's discovery lists a kind once its CRD is there
        RepoFiles.crds().forEach(crd -> admin.resource(crd).create());
      }
      Thread.currentThread().join();
    }
    String url = args[1];
    int backends = Integer.parseInt(args[2]);
    int claims = Integer.parseInt(args[3]);
    int movable = args.length > 4 ? Integer.parseInt(args[4]) : 0;
    int moves = args.length > 5 ? Integer.parseInt(args[5]) : 0;
    Config config =
        new ConfigBuilder()
            .withMasterUrl(url)
            .withTrustCerts(true)
            .withNamespace("thinvol-system")
            .build();
    try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build()) {
      for (int b = 0; b < backends; b++) {
        client
            .resource(
                Serialization.unmarshal(
                    "apiVersion: thinvol.io/v1alpha1\nkind: StorageBackend\nmetadata:\n  name: b"
                        + b
                        + "\n",
                    StorageBackend.class))
            .create();
      }
      for (int c = 0; c < claims; c++) {
        // Bound and annotated: every claim is also on a space-reclaim schedule of its own.
        PersistentVolumeClaim claim =
            MockClusterTest.claim("apps", "data-" + c, "b" + (c % backends));
        claim.getMetadata().setAnnotations(Map.of(SchedulePolicy.SCHEDULE, (c % 60) + " 3 * * *"));
        claim.getSpec().setVolumeName("pv-" + c);
        claim.setStatus(new PersistentVolumeClaimStatusBuilder().withPhase("Bound").build());
        client.persistentVolumeClaims().inNamespace("apps").resource(claim).create();
      }
      MoveFootprintWorld moving = new MoveFootprintWorld(client);
      if (movable > 0) {
        moving.seed(movable);
      }
      long start = System.nanoTime();
      try (OperatorRunner operator =
          OperatorRunner.start(
              client,
              new Settings("thinvol-system", "quay.io/thinvol/thinvol:0.1.0", false, true),
              false,
              0,
              MockClusterTest.noDriverCalls(),
              MockClusterTest.noMoveCopies(),
              MockClusterTest.withoutServerSideApply())) {
        while (client.resources(StorageBackend.class).list().getItems().stream()
                .anyMatch(sb -> sb.getStatus() == null)
            || scheduledVolumes(operator) < claims) {
          Thread.sleep(200);
        }
        long settled = System.nanoTime();
        moving.createMoves(moves);
        while (!moving.settled(moves)) {
          Thread.sleep(200);
        }
        client.resources(StorageBackend.class).withName("b0").delete();
        Thread.sleep(12_000); // the blocked deletion lists every claim, twice
        System.gc();
        Thread.sleep(500);
        String rss =
            Files.readAllLines(Path.of("/proc/self/status")).stream()
                .filter(l -> l.startsWith("VmRSS") || l.startsWith("VmHWM"))
                .map(l -> l.replaceAll("\\s+", " "))
                .reduce((a, b) -> a + "; " + b)
                .orElse("?");
        Runtime runtime = Runtime.getRuntime();
        int stored =
            client.resources(ReclaimSpaceJob.class).inAnyNamespace().list().getItems().size()
                + client
                    .resources(ReclaimSpaceCronJob.class)
                    .inAnyNamespace()
                    .list()
                    .getItems()
                    .size();
        System.out.printf(
            "backends=%d claims=%d (all on reclaim schedules) all-reconciled-in=%.1fs"
                + " heap-used=%dMiB reclaim-objects-stored=%d %s%n",
            backends,
            claims,
            (settled - start) / 1e9,
            (runtime.totalMemory() - runtime.freeMemory()) >> 20,
            stored,
            rss);
        if (movable > 0) {
          System.out.printf(
              "moves movable-claims=%d moves=%d (%s; maxConcurrentPerNode %d, all from node-a)"
                  + " heap-used-kib=%d%n",
              movable,
              moves,
              moves == 0 ? "none" : moving.phases(),
              MoveFootprintWorld.SLOTS_PER_NODE,
              (runtime.totalMemory() - runtime.freeMemory()) >> 10);
        }
      }
    }
  }
}
