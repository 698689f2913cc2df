package io.thinvol.operator.model;

import static io.thinvol.operator.model.StatusModel.DEGRADED;
import static io.thinvol.operator.model.StatusModel.PROGRESSING;
import static io.thinvol.operator.model.StatusModel.READY;

import io.fabric8.kubernetes.api.model.Condition;
import io.thinvol.api.kube.Conditions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** The three conditions of one status (Ready, Progressing, Degraded), built together. */
final class ConditionSet {

  private final List<Condition> previous;
  private final long generation;
  private final Instant now;
  private final List<Condition> list = new ArrayList<>();

  ConditionSet(List<Condition> previous, long generation, Instant now) {
    this.previous = previous;
    this.generation = generation;
    this.now = now;
  }

  void add(String type, String status, String reason, String message) {
    list.add(Conditions.of(previous, type, status, reason, message, generation, now));
  }

  /** Not ready yet, but on its way: nothing for a person to do. */
  void underWay(String readyReason, String progressReason, String message) {
    add(READY, "False", readyReason, message);
    add(PROGRESSING, "True", progressReason, message);
    add(DEGRADED, "False", progressReason, "nothing is wrong so far");
  }

  /** Not ready, and it will not get there until a person acts on the message. */
  void broken(String reason, String message) {
    add(READY, "False", reason, message);
    add(PROGRESSING, "False", reason, message);
    add(DEGRADED, "True", reason, message);
  }

  List<Condition> list() {
    return list;
  }
}
