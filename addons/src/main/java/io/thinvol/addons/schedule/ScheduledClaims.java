package io.thinvol.addons.schedule;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.thinvol.addons.AddonsMetrics;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The claims on a schedule in this process, by uid: their schedule, where it came from and the last
 * run handled, held in memory (a few dozen bytes each) and mirrored in the schedule metric.
 */
final class ScheduledClaims {

  record Tracked(
      String namespace,
      String name,
      String schedule,
      SchedulePolicy.Level level,
      Instant handled) {}

  private final AddonsMetrics metrics;
  private final Map<String, Tracked> tracked = new ConcurrentHashMap<>();
  private final Map<String, String> warnedInvalid = new ConcurrentHashMap<>();

  ScheduledClaims(AddonsMetrics metrics) {
    this.metrics = metrics;
  }

  Tracked get(String uid) {
    return tracked.get(uid);
  }

  /** The claim runs on {@code candidate}; {@code next} is its next run, null for none. */
  void track(
      PersistentVolumeClaim claim,
      SchedulePolicy.Candidate candidate,
      Instant handled,
      Instant next) {
    String namespace = claim.getMetadata().getNamespace();
    String name = claim.getMetadata().getName();
    tracked.put(
        claim.getMetadata().getUid(),
        new Tracked(namespace, name, candidate.schedule(), candidate.level(), handled));
    metrics.scheduled(
        namespace, name, candidate.level().name(), next == null ? 0 : next.getEpochSecond());
  }

  /** The claim is on no schedule any more; what it was on, if it was. */
  Tracked untrack(String uid) {
    warnedInvalid.remove(uid);
    Tracked gone = tracked.remove(uid);
    if (gone != null) {
      metrics.unscheduled(gone.namespace(), gone.name());
    }
    return gone;
  }

  /** Whether an invalid schedule is news for this claim: each value is warned about once. */
  boolean firstWarningOf(String uid, String invalidSchedule) {
    return !invalidSchedule.equals(warnedInvalid.put(uid, invalidSchedule));
  }

  /** Forgets the claims whose uid is not among {@code present}. */
  void retainOnly(Set<String> present) {
    tracked.keySet().stream().filter(uid -> !present.contains(uid)).toList().forEach(this::untrack);
  }

  int size() {
    return tracked.size();
  }
}
