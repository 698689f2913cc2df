package io.thinvol.api.kube;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/** Standard status conditions. */
public final class Conditions {

  private Conditions() {}

  /**
   * A condition whose {@code lastTransitionTime} is kept from the previous one of the same type
   * when its status did not change.
   */
  public static Condition of(
      List<Condition> previous,
      String type,
      String status,
      String reason,
      String message,
      long generation,
      Instant now) {
    String since =
        previous.stream()
            .filter(c -> type.equals(c.getType()) && Objects.equals(status, c.getStatus()))
            .map(Condition::getLastTransitionTime)
            .filter(Objects::nonNull)
            .findFirst()
            .orElse(now.toString());
    return new ConditionBuilder()
        .withType(type)
        .withStatus(status)
        .withReason(reason)
        .withMessage(message)
        .withObservedGeneration(generation)
        .withLastTransitionTime(since)
        .build();
  }

  /**
   * {@code previous} with the condition of {@code type} replaced by (or joined by) {@link #of}'s,
   * the others kept in their order.
   */
  public static List<Condition> with(
      List<Condition> previous,
      String type,
      boolean holds,
      String reason,
      String message,
      long generation,
      Instant now) {
    List<Condition> before = previous == null ? List.of() : previous;
    Condition next = of(before, type, holds ? "True" : "False", reason, message, generation, now);
    List<Condition> conditions = new ArrayList<>();
    for (Condition c : before) {
      if (!type.equals(c.getType())) {
        conditions.add(c);
      }
    }
    conditions.add(next);
    return conditions;
  }

  /** The condition of a type, if present. */
  public static Optional<Condition> find(List<Condition> conditions, String type) {
    return conditions == null
        ? Optional.empty()
        : conditions.stream().filter(c -> type.equals(c.getType())).findFirst();
  }

  /** True when the condition of a type is present with status True. */
  public static boolean isTrue(List<Condition> conditions, String type) {
    return find(conditions, type).map(c -> "True".equals(c.getStatus())).orElse(false);
  }
}
