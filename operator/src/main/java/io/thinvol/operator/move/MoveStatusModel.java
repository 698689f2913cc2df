package io.thinvol.operator.move;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.api.kube.Conditions;
import io.thinvol.api.v1alpha1.MovePhase;
import io.thinvol.api.v1alpha1.VolumeMove;
import io.thinvol.api.v1alpha1.VolumeMoveStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Set;

/** How a move's status reads: its conditions, its figures in the units people read. */
final class MoveStatusModel {

  static final String PRE_COPIED = "PreCopied";
  static final String CUT_OVER = "CutOver";
  static final String SUCCEEDED = "Succeeded";
  static final String FAILED = "Failed";

  /** The phases in which a move copies from its source node (and holds one of its slots). */
  static final Set<MovePhase> COPYING = Set.of(MovePhase.PreCopying, MovePhase.CuttingOver);

  private MoveStatusModel() {}

  static VolumeMoveStatus copy(VolumeMove move) {
    return move.getStatus() == null
        ? new VolumeMoveStatus()
        : Serialization.clone(move.getStatus());
  }

  static boolean ended(VolumeMove move) {
    MovePhase phase = move.getStatus() == null ? null : move.getStatus().getPhase();
    return phase == MovePhase.Succeeded || phase == MovePhase.Failed;
  }

  static MovePhase phase(VolumeMove move) {
    return move.getStatus() == null || move.getStatus().getPhase() == null
        ? MovePhase.Pending
        : move.getStatus().getPhase();
  }

  /** Sets a condition, keeping its transition time when its status did not change. */
  static void condition(
      VolumeMoveStatus status,
      long generation,
      Instant now,
      String type,
      boolean holds,
      String reason,
      String message) {
    status.setConditions(
        Conditions.with(status.getConditions(), type, holds, reason, message, generation, now));
  }

  static Quantity bytes(long bytes) {
    return new Quantity(String.valueOf(bytes));
  }

  static long bytes(Quantity quantity) {
    return quantity == null ? 0 : Quantity.getAmountInBytes(quantity).longValue();
  }

  /** A size as people read it: 1.5 GiB, 212.4 MiB, 12 KiB, 0 B. */
  static String size(long bytes) {
    String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
    double value = bytes;
    int unit = 0;
    while (value >= 1024 && unit < units.length - 1) {
      value /= 1024;
      unit++;
    }
    return unit == 0 ? bytes + " B" : String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
  }

  /** Bytes over a time, e.g. {@code 212.4 MiB/s}. */
  static String rate(long bytes, Duration over) {
    long millis = Math.max(1, over.toMillis());
    return size(bytes * 1000 / millis) + "/s";
  }

  /** A duration as the status shows it, e.g. {@code 1.8s}. */
  static String seconds(Duration duration) {
    return String.format(Locale.ROOT, "%.1fs", duration.toMillis() / 1000.0);
  }
}
