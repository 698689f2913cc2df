package io.thinvol.operator.kinds;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.ConfigurationServiceOverrider;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.inbound.SimpleInboundEventSource;
import io.thinvol.api.v1alpha1.ReclaimSpaceCronJob;
import io.thinvol.api.v1alpha1.ReclaimSpaceJob;
import io.thinvol.api.v1alpha1.VolumeMove;
import io.thinvol.api.v1alpha1.VolumeReplication;
import io.thinvol.api.v1alpha1.VolumeReplicationClass;
import io.thinvol.operator.ClusterFacts;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place that knows which of the operator's controllers need kinds beyond StorageBackend,
 * and starts them once the cluster serves those kinds. A cluster can lack one: Helm installs a
 * chart's CRDs but never upgrades them, so an upgrade that brings a new kind leaves it out until
 * the admin applies the chart's {@code crds/}. StorageBackends and what needs no missing kind then
 * run as ever; the rest waits, reported once in the log, on every StorageBackend (Degraded, {@code
 * CrdMissing}) and in {@code /readyz}, with the command that installs the CRD.
 *
 * <p>Controllers whose kinds are served at start are registered with the operator itself. For a
 * missing CRD the operator gets a controller watching that one CRD ({@link CrdAppearance}), which
 * runs in the leader only; once discovery lists every kind some controllers need, they start in an
 * operator of their own (JOSDK registers controllers only before an operator starts), with the main
 * operator's configuration without leader election: their start is the leader's act already.
 */
public final class OptionalKinds implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(OptionalKinds.class);

  /** The kinds that may be missing: thinvol's own beyond StorageBackend. */
  public static final List<Class<? extends HasMetadata>> KINDS =
      List.of(
          ReclaimSpaceJob.class,
          ReclaimSpaceCronJob.class,
          VolumeMove.class,
          VolumeReplication.class,
          VolumeReplicationClass.class);

  private final KubernetesClient client;
  private final Consumer<ConfigurationServiceOverrider> configuration;
  private final List<KindControllers> waiting = new ArrayList<>();
  private final List<Operator> started = new CopyOnWriteArrayList<>();
  private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
  private volatile List<String> missing = List.of();
  private boolean closed;

  /**
   * @param configuration the configuration of an operator running controllers started late
   */
  public OptionalKinds(
      KubernetesClient client, Consumer<ConfigurationServiceOverrider> configuration) {
    this.client = client;
    this.configuration = configuration;
  }

  /**
   * Registers with {@code operator}, not started yet, the controllers whose kinds the cluster
   * serves; for each CRD the others need and the cluster lacks, a controller that waits for it.
   */
  public synchronized void register(Operator operator, List<KindControllers> all) {
    for (KindControllers controllers : all) {
      for (Class<? extends HasMetadata> kind : controllers.kinds()) {
        if (!KINDS.contains(kind)) {
          // its CRD could not be watched: the operator's rights name only those of KINDS
          throw new IllegalArgumentException(kind.getSimpleName() + " is not among " + KINDS);
        }
      }
    }
    Set<String> served = served(all);
    for (KindControllers controllers : all) {
      if (served.containsAll(controllers.crds())) {
        controllers.register().accept(operator);
      } else {
        waiting.add(controllers);
      }
    }
    Set<String> absent = crds(waiting);
    absent.removeAll(served);
    absent.forEach(crd -> CrdAppearance.register(operator, crd, this));
    missing = messages(served);
    missing.forEach(message -> log.warn("{}", message));
  }

  /**
   * Starts, in an operator of their own, the waiting controllers whose kinds are all served now.
   *
   * @throws io.javaoperatorsdk.operator.OperatorException when they cannot start; they wait on
   */
  synchronized void startServed() {
    if (waiting.isEmpty() || closed) {
      return;
    }
    Set<String> served = served(waiting);
    List<KindControllers> ready =
        waiting.stream().filter(c -> served.containsAll(c.crds())).toList();
    if (!ready.isEmpty()) {
      Operator late = new Operator(configuration);
      ready.forEach(controllers -> controllers.register().accept(late));
      late.start();
      started.add(late);
      waiting.removeAll(ready);
      ready.forEach(c -> log.info("{} started: the cluster serves {} now", c.what(), c.crds()));
    }
    List<String> now = messages(served);
    if (!now.equals(missing)) {
      missing = now;
      listeners.forEach(Runnable::run);
    }
  }

  /** Whether some controllers still wait for {@code crd}. */
  synchronized boolean waitsFor(String crd) {
    return crds(waiting).contains(crd);
  }

  /** What waits for which missing CRD, and how to install it; empty when nothing waits. */
  public Optional<String> missing() {
    List<String> now = missing;
    return now.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", now));
  }

  /**
   * An event source that reconciles every primary of {@code context} when {@link #missing} changes.
   */
  public <P extends HasMetadata> EventSource<Void, P> eventSource(EventSourceContext<P> context) {
    SimpleInboundEventSource<P> source = new SimpleInboundEventSource<>("optional-kinds");
    listeners.add(
        () ->
            context
                .getPrimaryCache()
                .list()
                .forEach(primary -> source.propagateEvent(ResourceID.fromResource(primary))));
    return source;
  }

  /** The names of the CRDs of {@link #KINDS}, which the operator may watch. */
  public static List<String> crdNames() {
    return KINDS.stream().map(HasMetadata::getFullResourceName).toList();
  }

  /** The operators started late, to be watched and stopped with the main one. */
  public List<Operator> started() {
    return List.copyOf(started);
  }

  @Override
  public synchronized void close() {
    closed = true;
    started.forEach(Operator::stop);
  }

  /** The CRDs of {@code controllers}' kinds that discovery lists now. */
  private Set<String> served(List<KindControllers> controllers) {
    Set<String> served = new HashSet<>();
    controllers.stream()
        .flatMap(c -> c.kinds().stream())
        .map(HasMetadata::getApiVersion)
        .distinct()
        .forEach(
            version -> {
              String group = version.substring(0, version.indexOf('/'));
              ClusterFacts.servedResources(client, version)
                  .forEach(resource -> served.add(resource + "." + group));
            });
    return served;
  }

  private List<String> messages(Set<String> served) {
    Map<String, List<String>> waitingFor = new TreeMap<>();
    for (KindControllers controllers : waiting) {
      for (String crd : controllers.crds()) {
        if (!served.contains(crd)) {
          waitingFor.computeIfAbsent(crd, c -> new ArrayList<>()).add(controllers.what());
        }
      }
    }
    List<String> messages = new ArrayList<>();
    waitingFor.forEach((crd, what) -> messages.add(MissingCrd.message(crd, what)));
    return messages;
  }

  private static Set<String> crds(List<KindControllers> controllers) {
    Set<String> crds = new TreeSet<>();
    controllers.forEach(c -> crds.addAll(c.crds()));
    return crds;
  }
}
