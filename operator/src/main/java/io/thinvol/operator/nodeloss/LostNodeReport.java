package io.thinvol.operator.nodeloss;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.javaoperatorsdk.operator.processing.event.source.timer.TimerEventSource;
import io.thinvol.api.kube.Conditions;
import io.thinvol.api.kube.Events;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.api.v1alpha1.StorageBackendStatus;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Claims whose volumes are on lost nodes (docs/moves.md, "A node lost for good"): a node is lost
 * when its Node is deleted or tainted {@value NodeHealth#OUT_OF_SERVICE}; NotReady alone is not (a
 * reboot looks the same). For each backend, on its reconcile: the condition {@value #CONDITION}
 * (True naming the nodes and claims, False once none is left; absent on a backend that never had
 * one), a Warning {@code NodeLost} on each claim (repeated every {@link #REPEAT} while it lasts, so
 * that {@code kubectl describe} still shows it after Events expire), a Warning on the backend when
 * the lost set changes, and {@link LostVolumesGauge}. A Node deleted, made again or tainted
 * reconciles every backend. Reports only: nothing is deleted or rebound.
 */
public final class LostNodeReport {

  public static final String CONDITION = "VolumesOnLostNodes";

  /** Kubernetes keeps an Event an hour by default; repeated sooner, it stays in sight. */
  static final Duration REPEAT = Duration.ofMinutes(30);

  private static final Logger log = LoggerFactory.getLogger(LostNodeReport.class);

  private final KubernetesClient client;
  private final Events events;
  private final Clock clock;
  private final LostVolumesGauge gauge;

  /** By backend: when each claim (uid/node) was last told. */
  private final Map<String, Map<String, Instant>> announced = new ConcurrentHashMap<>();

  private final TimerEventSource<StorageBackend> repeat =
      new TimerEventSource<>("lost-node-repeat", false);
  private volatile InformerEventSource<Node, StorageBackend> nodes;

  public LostNodeReport(KubernetesClient client, Clock clock, LostVolumesGauge gauge) {
    this.client = client;
    this.events = new Events(client, clock);
    this.clock = clock;
    this.gauge = gauge;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  public List<EventSource<?, StorageBackend>> eventSources(
      EventSourceContext<StorageBackend> context) {
    nodes =
        new InformerEventSource<>(
            NodeCache.of("lost-nodes", StorageBackend.class, context)
                .withOnUpdateFilter(
                    (after, before) ->
                        NodeHealth.of(Optional.ofNullable(before)).lost()
                            != NodeHealth.of(Optional.ofNullable(after)).lost())
                .withSecondaryToPrimaryMapper(
                    node ->
                        context
                            .getPrimaryCache()
                            .list()
                            .map(ResourceID::fromResource)
                            .collect(Collectors.toSet()))
                .build(),
            context);
    return List.of(nodes, (EventSource) repeat);
  }

  /**
   * {@code status} with the backend's {@value #CONDITION}, its claims told, its gauge recorded.
   *
   * @param volumes the backend's PersistentVolumes
   */
  public StorageBackendStatus report(
      StorageBackend backend, Stream<PersistentVolume> volumes, StorageBackendStatus status) {
    Map<String, List<LostClaim>> byNode = LostVolumes.of(volumes, this::health);
    String name = backend.getMetadata().getName();
    gauge.record(name, byNode);
    List<Condition> previous =
        backend.getStatus() == null || backend.getStatus().getConditions() == null
            ? List.of()
            : backend.getStatus().getConditions();
    Optional<Condition> before = Conditions.find(previous, CONDITION);
    if (byNode.isEmpty() && before.isEmpty()) {
      return status;
    }
    Instant now = clock.instant();
    String message = byNode.isEmpty() ? LostNodeMessages.noneLost() : LostNodeMessages.lost(byNode);
    Condition next =
        Conditions.of(
            previous,
            CONDITION,
            byNode.isEmpty() ? "False" : "True",
            byNode.isEmpty() ? "NoneLost" : "NodesLost",
            message,
            backend.getMetadata().getGeneration() == null
                ? 0
                : backend.getMetadata().getGeneration(),
            now);
    if (before.isEmpty() || !message.equals(before.get().getMessage())) {
      log.warn("StorageBackend {}: {}", name, message);
      if (byNode.isEmpty()) {
        events.normal(backend, "NoVolumesOnLostNodes", message);
      } else {
        events.recurringWarning(backend, CONDITION, message);
      }
    }
    tellClaims(name, byNode, now);
    if (!byNode.isEmpty()) {
      repeat.scheduleOnce(ResourceID.fromResource(backend), REPEAT.toMillis());
    }
    List<Condition> conditions = new ArrayList<>();
    for (Condition condition : status.getConditions()) {
      if (!CONDITION.equals(condition.getType())) {
        conditions.add(condition);
      }
    }
    conditions.add(next);
    status.setConditions(conditions);
    return status;
  }

  /** A deleted backend's series go. */
  public void forget(StorageBackend backend) {
    gauge.forget(backend.getMetadata().getName());
    announced.remove(backend.getMetadata().getName());
  }

  /** Each claim's Warning, once, then again every {@link #REPEAT} while it lasts. */
  private void tellClaims(String backend, Map<String, List<LostClaim>> byNode, Instant now) {
    Map<String, Instant> before = announced.getOrDefault(backend, Map.of());
    Map<String, Instant> told = new HashMap<>();
    byNode.values().stream()
        .flatMap(List::stream)
        .forEach(
            claim -> {
              String key = claim.uid() + "/" + claim.node();
              Instant last = before.get(key);
              if (last == null || !now.isBefore(last.plus(REPEAT))) {
                events.recurringWarning(
                    claim.reference(), "NodeLost", LostNodeMessages.claim(claim));
                last = now;
              }
              told.put(key, last);
            });
    // a claim whose node came back is told again if its node is lost again
    if (told.isEmpty()) {
      announced.remove(backend);
    } else {
      announced.put(backend, told);
    }
  }

  /**
   * The node's health from the cache; a node the cache does not hold is looked up once more, so
   * that a watch that lags a re-created Node does not report it lost.
   */
  private NodeHealth health(String node) {
    InformerEventSource<Node, StorageBackend> informer = nodes;
    Optional<Node> cached =
        informer == null ? Optional.empty() : informer.get(new ResourceID(node));
    return NodeHealth.of(
        cached.isPresent() ? cached : Optional.ofNullable(client.nodes().withName(node).get()));
  }
}
