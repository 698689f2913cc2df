package io.thinvol.operator.move;

import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.thinvol.api.v1alpha1.MovesSpec;
import java.time.Duration;

/**
 * How long a move waits for what may pass, from its backend's {@code spec.moves} (the CRD's
 * defaults where unset; values below the CRD's minimum, which an API server that skips the schema
 * lets through, raised to it).
 *
 * @param nodeNotReady how long a move that has not deleted its claim waits for its nodes to be
 *     Ready again before it fails
 * @param cutOver how long after its start a cut-over may keep failing before it rolls back
 */
record MoveDeadlines(Duration nodeNotReady, Duration cutOver) {

  static MoveDeadlines of(Move move) throws MoveFailure {
    return of(SourceFacts.moves(move, SourceFacts.oldVolume(move)));
  }

  static MoveDeadlines of(Move move, PersistentVolume old) {
    return of(SourceFacts.moves(move, old));
  }

  static MoveDeadlines of(MovesSpec spec) {
    return new MoveDeadlines(
        seconds(
            spec.getNodeNotReadySeconds(),
            MovesSpec.DEFAULT_NODE_NOT_READY_SECONDS,
            MovesSpec.MIN_NODE_NOT_READY_SECONDS),
        seconds(
            spec.getCutOverDeadlineSeconds(),
            MovesSpec.DEFAULT_CUT_OVER_DEADLINE_SECONDS,
            MovesSpec.MIN_CUT_OVER_DEADLINE_SECONDS));
  }

  private static Duration seconds(Integer value, int fallback, int min) {
    return Duration.ofSeconds(value == null ? fallback : Math.max(min, value));
  }

  /** A duration as a message says it: {@code 5 minutes}, {@code 90 seconds}. */
  static String say(Duration duration) {
    long seconds = duration.toSeconds();
    if (seconds % 60 == 0) {
      long minutes = seconds / 60;
      return minutes + (minutes == 1 ? " minute" : " minutes");
    }
    return seconds + " seconds";
  }
}
