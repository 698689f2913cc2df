package io.thinvol.addons.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * When the runs of one scheduled period reached the drivers: each run's offset into the period (how
 * the stagger spread them) and its lag behind its claim's staggered time (whether the operator kept
 * up). A claim's staggered time in the period is the period's start plus its stagger offset, or
 * that of the period before when the run came before its offset (a run late by more than its
 * offset).
 *
 * @param runs driver calls in the period
 * @param claimsRun distinct volumes among them
 * @param offsets seconds into the period, sorted
 * @param lags seconds behind the staggered time, sorted
 * @param perTenth runs in each tenth of the period
 * @param peakPerSecond the most runs in one second
 */
record RunSpread(
    int runs,
    int claimsRun,
    List<Double> offsets,
    List<Double> lags,
    long[] perTenth,
    int peakPerSecond) {

  /**
   * @param calls one line a driver call: the volume and the time (epoch ms)
   * @param staggerMs each volume's stagger offset in the period, in ms
   */
  static RunSpread of(List<String> calls, Map<String, Long> staggerMs, long from, long period) {
    List<Double> offsets = new ArrayList<>();
    List<Double> lags = new ArrayList<>();
    long[] perTenth = new long[10];
    Map<Long, Integer> perSecond = new HashMap<>();
    Map<String, Integer> perVolume = new HashMap<>();
    for (String call : calls) {
      String[] words = call.split(" ");
      long at = Long.parseLong(words[1]);
      long offset = at - from;
      offsets.add(offset / 1000.0);
      perTenth[(int) Math.min(9, offset * 10 / period)]++;
      perSecond.merge(at / 1000, 1, Integer::sum);
      perVolume.merge(words[0], 1, Integer::sum);
      Long stagger = staggerMs.get(words[0]);
      if (stagger != null) {
        long due = from + stagger - (offset < stagger ? period : 0);
        lags.add((at - due) / 1000.0);
      }
    }
    Collections.sort(offsets);
    Collections.sort(lags);
    int peak = perSecond.values().stream().mapToInt(Integer::intValue).max().orElse(0);
    return new RunSpread(calls.size(), perVolume.size(), offsets, lags, perTenth, peak);
  }

  String describe() {
    return String.format(
        "runs in the period: %d (%d claims)%n"
            + "offset into the period (s): min %s median %s max %s%n"
            + "runs per tenth of the period: %s, most in one second: %d%n"
            + "lag behind the staggered time (s): median %s p95 %s max %s",
        runs,
        claimsRun,
        quantile(offsets, 0),
        quantile(offsets, 0.5),
        quantile(offsets, 1),
        Arrays.toString(perTenth),
        peakPerSecond,
        quantile(lags, 0.5),
        quantile(lags, 0.95),
        quantile(lags, 1));
  }

  private static String quantile(List<Double> sorted, double q) {
    if (sorted.isEmpty()) {
      return "-";
    }
    return String.format("%.1f", sorted.get((int) Math.round(q * (sorted.size() - 1))));
  }
}
