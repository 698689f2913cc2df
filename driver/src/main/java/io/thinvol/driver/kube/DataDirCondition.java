package io.thinvol.driver.kube;

import io.thinvol.driver.core.DataDirHealth;
import java.time.Clock;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the cluster whether this node's data dir is full ({@value #TYPE}) or cannot take images at
 * all ({@value #UNUSABLE_TYPE}: a dedicated mount missing, read-only), as conditions of the
 * driver's own Pod: {@code kubectl describe pod} shows them, and the operator, which watches the
 * node pods anyway, turns them into the StorageBackend's node problems and an Event. The data dir
 * is checked on a period (statfs, no API call); the Pod is patched only when the answer changes,
 * and once at start so a condition left by a previous container is corrected.
 */
public final class DataDirCondition implements AutoCloseable {

  public static final String TYPE = "thinvol.io/DataDirFull";
  public static final String UNUSABLE_TYPE = "thinvol.io/DataDirUnusable";

  private static final Logger log = LoggerFactory.getLogger(DataDirCondition.class);

  private final DataDirHealth health;
  private final Supplier<ApiServer> apis;
  private final String namespace;
  private final String pod;
  private final Clock clock;
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread thread = new Thread(r, "data-dir-condition");
            thread.setDaemon(true);
            return thread;
          });
  private ApiServer api;
  private String reported; // what the Pod says now, as far as this process knows

  public DataDirCondition(
      DataDirHealth health, Supplier<ApiServer> apis, String namespace, String pod, Clock clock) {
    this.health = health;
    this.apis = apis;
    this.namespace = namespace;
    this.pod = pod;
    this.clock = clock;
  }

  /** Checks now and then every {@code period}. */
  public DataDirCondition start(Duration period) {
    timer.scheduleWithFixedDelay(this::checkQuietly, 0, period.toMillis(), TimeUnit.MILLISECONDS);
    return this;
  }

  /** Patches the Pod when the data dir's state differs from what the Pod says. */
  public synchronized void check() {
    DataDirHealth.State state = health.state();
    String now = state.full() + "/" + (state.unusable() == null ? "" : state.unusable().reason());
    if (now.equals(reported)) {
      return;
    }
    if (api == null) {
      api = apis.get();
    }
    api.strategicMergePatch(
        "/api/v1/namespaces/" + namespace + "/pods/" + pod + "/status", patch(state));
    reported = now;
    if (state.unusable() != null) {
      log.warn(
          "data dir unusable, reported on pod {}/{}: {}",
          namespace,
          pod,
          state.unusable().message());
    } else if (state.full()) {
      log.warn("data dir full, reported on pod {}/{}: {}", namespace, pod, state.problem());
    } else {
      log.info("data dir usable with room, reported on pod {}/{}", namespace, pod);
    }
  }

  private void checkQuietly() {
    try {
      check();
    } catch (RuntimeException e) { // an escaping exception would end the schedule
      log.warn(
          "cannot report the data dir's state on pod {}/{}: {}", namespace, pod, e.getMessage());
    }
  }

  // Pod conditions merge by type: the kubelet's own conditions are left alone.
  private Map<String, Object> patch(DataDirHealth.State state) {
    Map<String, Object> condition = new LinkedHashMap<>();
    condition.put("type", TYPE);
    condition.put("status", state.full() ? "True" : "False");
    condition.put("reason", state.full() ? "DataDirFull" : "SpaceAvailable");
    condition.put(
        "message",
        state.full()
            ? state.problem()
            : String.format(
                "%d of %d bytes available in %s",
                state.availableBytes(), state.totalBytes(), state.root()));
    condition.put("lastTransitionTime", clock.instant().truncatedTo(ChronoUnit.SECONDS).toString());
    Map<String, Object> unusable = new LinkedHashMap<>();
    unusable.put("type", UNUSABLE_TYPE);
    unusable.put("status", state.unusable() != null ? "True" : "False");
    unusable.put("reason", state.unusable() != null ? state.unusable().reason() : "Usable");
    unusable.put(
        "message",
        state.unusable() != null
            ? state.unusable().message()
            : "the data dir " + state.root() + " can take images");
    unusable.put("lastTransitionTime", condition.get("lastTransitionTime"));
    return Map.of("status", Map.of("conditions", List.of(condition, unusable)));
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
