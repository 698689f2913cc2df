package io.thinvol.addons.schedule;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Which schedule a PVC's volume is reclaimed on: the {@value #SCHEDULE} annotation of the PVC, else
 * of its Namespace, else of its StorageClass, else the StorageBackend's default. {@value #ENABLE}
 * {@code "false"} opts out, decided by the same precedence (a PVC's {@code "true"} overrides its
 * Namespace's {@code "false"}).
 */
public final class SchedulePolicy {

  public static final String SCHEDULE = "reclaimspace.thinvol.io/schedule";
  public static final String ENABLE = "reclaimspace.thinvol.io/enable";

  /** Where a setting came from, in order of precedence. */
  public enum Level {
    PersistentVolumeClaim,
    Namespace,
    StorageClass,
    StorageBackend
  }

  public record Candidate(Level level, String schedule) {}

  /**
   * @param disabledBy the level whose annotation opted out, if any
   * @param candidates the schedules in order of precedence; the first that parses is used
   */
  public record Decision(Optional<Level> disabledBy, List<Candidate> candidates) {}

  private SchedulePolicy() {}

  public static Decision decide(
      Map<String, String> claim,
      Map<String, String> namespace,
      Map<String, String> storageClass,
      String backendDefault) {
    List<Map<String, String>> levels =
        List.of(orEmpty(claim), orEmpty(namespace), orEmpty(storageClass));
    for (int i = 0; i < levels.size(); i++) {
      String enable = levels.get(i).get(ENABLE);
      if (enable != null && !enable.isBlank()) {
        if ("false".equalsIgnoreCase(enable.trim())) {
          return new Decision(Optional.of(Level.values()[i]), List.of());
        }
        break; // "true" here outranks an opt-out further down
      }
    }
    List<Candidate> candidates = new ArrayList<>();
    for (int i = 0; i < levels.size(); i++) {
      String schedule = levels.get(i).get(SCHEDULE);
      if (schedule != null && !schedule.isBlank()) {
        candidates.add(new Candidate(Level.values()[i], schedule.trim()));
      }
    }
    candidates.add(
        new Candidate(Level.StorageBackend, backendDefault == null ? "@weekly" : backendDefault));
    return new Decision(Optional.empty(), candidates);
  }

  private static Map<String, String> orEmpty(Map<String, String> annotations) {
    return annotations == null ? Map.of() : annotations;
  }
}
