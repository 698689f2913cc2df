package io.thinvol.addons.schedule;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.thinvol.api.kube.Events;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The upstream CSI-Addons controller's annotations ({@value #PREFIX}...) on a thinvol claim: that
 * controller skips drivers it does not run a sidecar for, and thinvol reads its own keys, so nobody
 * acts on them. Said once per claim and set of keys with a Warning Event naming the key thinvol
 * reads, not at every reconcile.
 */
final class UpstreamAnnotations {

  static final String PREFIX = "reclaimspace.csiaddons.openshift.io/";
  static final String REASON = "UpstreamAnnotationIgnored";

  private final Events events;
  private final Map<String, List<String>> warned = new ConcurrentHashMap<>();

  UpstreamAnnotations(Events events) {
    this.events = events;
  }

  /** Warns about the claim's upstream keys unless it was already warned about these. */
  void check(PersistentVolumeClaim claim) {
    String uid = claim.getMetadata().getUid();
    List<String> keys =
        Optional.ofNullable(claim.getMetadata().getAnnotations()).orElse(Map.of()).keySet().stream()
            .filter(k -> k.startsWith(PREFIX))
            .sorted()
            .toList();
    if (keys.isEmpty()) {
      warned.remove(uid);
      return;
    }
    if (keys.equals(warned.put(uid, keys))) {
      return;
    }
    events.warning(
        claim,
        REASON,
        "the annotation"
            + (keys.size() == 1 ? " " + keys.get(0) + " is" : "s " + keys + " are")
            + " the upstream CSI-Addons controller's and nobody acts on "
            + (keys.size() == 1 ? "it" : "them")
            + " for a thinvol volume: thinvol reads "
            + SchedulePolicy.SCHEDULE
            + " (a cron schedule, e.g. @weekly) and "
            + SchedulePolicy.ENABLE
            + " (\"false\" opts out) on the claim, its Namespace or its StorageClass");
  }

  /** Forgets deleted claims. */
  void retainOnly(Set<String> uids) {
    warned.keySet().retainAll(uids);
  }
}
