package io.thinvol.driver.bench;

import csi.v1.VolumeCapability;
import io.thinvol.driver.client.CsiClient;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** What the driver's benchmarks share: volumes made and removed, scripts run, figures summed up. */
final class BenchSupport {

  static final long MIB = 1L << 20;

  private BenchSupport() {}

  /** Runs a bench script and returns its output; a failing script ends the benchmark. */
  static String runScript(List<String> argv) {
    try {
      Process process = new ProcessBuilder(argv).redirectErrorStream(true).start();
      String out = new String(process.getInputStream().readAllBytes()).strip();
      if (process.waitFor() != 0) {
        throw new IllegalStateException(argv.get(0) + " failed: " + out);
      }
      return out;
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** A 16 MiB volume. */
  static String create(CsiClient csi, String name, VolumeCapability capability) {
    return create(csi, name, capability, 16 * MIB);
  }

  static String create(CsiClient csi, String name, VolumeCapability capability, long bytes) {
    return csi.createVolume(name, bytes, capability, null);
  }

  static void delete(CsiClient csi, String id) {
    csi.deleteVolume(id);
  }

  static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    return sorted.get(sorted.size() / 2);
  }

  static double percentile(List<Long> nanos, int p) {
    List<Long> sorted = new ArrayList<>(nanos);
    Collections.sort(sorted);
    int index = Math.min(sorted.size() - 1, (int) Math.ceil(p / 100.0 * sorted.size()) - 1);
    return sorted.get(Math.max(0, index)) / 1e6;
  }
}
