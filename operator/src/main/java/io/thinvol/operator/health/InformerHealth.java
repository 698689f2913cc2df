package io.thinvol.operator.health;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Whether the operator's informers work, for the liveness probe, which restarts the process. An
 * informer is unhealthy (JOSDK: not running, not synced or not watching) for a moment whenever its
 * watch ends and is opened again, which the API server makes happen every few minutes and on every
 * error; fabric8 reconnects by itself, and a restart would only lose the caches. So an informer
 * fails liveness only when it has been found unhealthy at every check for {@link #GRACE}: then it
 * is not reconnecting (its resource's CRD was deleted, the API server refuses it), and a new
 * process, which lists the served APIs again, may do better.
 */
public final class InformerHealth {

  /** Many times fabric8's longest reconnect back-off, and longer than an API server's restart. */
  public static final Duration GRACE = Duration.ofMinutes(5);

  /** The answer to one check: alive or not, and the text the probe shows. */
  public record Verdict(boolean alive, String text) {}

  private final Supplier<Set<String>> unhealthy;
  private final Clock clock;
  private final Map<String, Instant> unhealthySince = new TreeMap<>();

  /**
   * @param unhealthy the informers unhealthy now, each named {@code controller/event source}
   */
  public InformerHealth(Supplier<Set<String>> unhealthy, Clock clock) {
    this.unhealthy = unhealthy;
    this.clock = clock;
  }

  public synchronized Verdict check() {
    Set<String> now = unhealthy.get();
    Instant checked = clock.instant();
    unhealthySince.keySet().retainAll(now);
    now.forEach(name -> unhealthySince.putIfAbsent(name, checked));
    if (unhealthySince.isEmpty()) {
      return new Verdict(true, "ok\n");
    }
    Instant limit = checked.minus(GRACE);
    Map<String, Instant> lasting =
        unhealthySince.entrySet().stream()
            .filter(e -> !e.getValue().isAfter(limit))
            .collect(
                Collectors.toMap(
                    Map.Entry::getKey, Map.Entry::getValue, (a, b) -> a, TreeMap::new));
    if (!lasting.isEmpty()) {
      return new Verdict(
          false,
          "informers unhealthy for more than " + GRACE.toMinutes() + " minutes: " + list(lasting));
    }
    return new Verdict(true, "ok; reconnecting: " + list(unhealthySince));
  }

  private static String list(Map<String, Instant> since) {
    return since.entrySet().stream()
            .map(e -> e.getKey() + " (since " + e.getValue() + ")")
            .collect(Collectors.joining(", "))
        + "\n";
  }
}
