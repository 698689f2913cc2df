package io.thinvol.addons.bench;

import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.javaoperatorsdk.operator.Operator;
import io.thinvol.addons.Addons;
import io.thinvol.addons.AddonsSettings;
import io.thinvol.testing.TestCluster;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;

/**
 * The operator's side of {@link AddonsScaleBenchmark}, in a process of its own so that its heap is
 * its alone: the addons as the operator registers them, as the operator's ServiceAccount, with a
 * {@link CountingCaller} in place of the drivers. It says {@code ready} once every claim is on its
 * schedule, then answers {@code report <from> <to>} (epoch ms) on its standard input: its heap
 * after a GC and RSS, one line for each driver call in that window, and the number of all calls.
 */
public final class ScaleOperator {

  private ScaleOperator() {}

  public static void main(String[] args) throws Exception {
    String url = args[0];
    int claims = Integer.parseInt(args[1]);
    CountingCaller caller = new CountingCaller();
    try (KubernetesClient client =
        new KubernetesClientBuilder()
            .withConfig(
                TestCluster.impersonating(
                    new ConfigBuilder().withMasterUrl(url).withTrustCerts(true).build(),
                    TestCluster.OPERATOR,
                    TestCluster.OPERATOR_NAMESPACE))
            .build()) {
      Operator operator =
          new Operator(
              o ->
                  o.withKubernetesClient(client)
                      .withCloseClientOnStop(false)
                      .withUseSSAToPatchPrimaryResource(false));
      Addons addons =
          Addons.register(
              operator,
              client,
              AddonsSettings.defaults(TestCluster.OPERATOR_NAMESPACE),
              caller,
              Clock.systemUTC());
      operator.start();
      String scheduled = "thinvol_reclaimspace_scheduled_volumes " + claims + "\n";
      while (!addons.metrics().render().contains(scheduled)) {
        Thread.sleep(200);
      }
      System.out.println("ready");
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        String[] words = line.split(" ");
        if (words[0].equals("report")) {
          long from = Long.parseLong(words[1]);
          long to = Long.parseLong(words[2]);
          System.out.println("heap " + heapAfterGc() + " " + rss());
          caller.callsIn(from, to).forEach(call -> System.out.println("call " + call));
          System.out.println("calls " + caller.calls());
        } else if (words[0].equals("stop")) {
          break;
        }
      }
      operator.stop();
      addons.close();
    }
    caller.close();
    System.exit(0);
  }

  private static String heapAfterGc() throws InterruptedException {
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(200);
    }
    long used = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    return String.format("%.1fMiB", used / 1048576.0);
  }

  private static String rss() throws java.io.IOException {
    return Files.readAllLines(Path.of("/proc/self/status")).stream()
        .filter(l -> l.startsWith("VmRSS"))
        .map(l -> l.replaceAll("\\s+", ""))
        .findFirst()
        .orElse("VmRSS:?");
  }
}
