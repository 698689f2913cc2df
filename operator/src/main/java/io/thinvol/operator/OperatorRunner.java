package io.thinvol.operator;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfigurationBuilder;
import io.thinvol.addons.Addons;
import io.thinvol.addons.AddonsSettings;
import io.thinvol.addons.call.MoveCopier;
import io.thinvol.addons.call.ReclaimCaller;
import io.thinvol.api.kube.Events;
import io.thinvol.operator.evacuate.NodeEvacuator;
import io.thinvol.operator.health.HealthServer;
import io.thinvol.operator.health.InformerHealth;
import io.thinvol.operator.model.GroupSnapshotModel;
import io.thinvol.operator.model.Settings;
import io.thinvol.operator.monitoring.NodePodsGauge;
import io.thinvol.operator.move.VolumeMoveReconciler;
import io.thinvol.operator.replicate.ReplicationMetrics;
import io.thinvol.operator.replicate.VolumeReplicationReconciler;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running operator: the StorageBackend, VolumeMove and VolumeReplication reconcilers and the
 * space-reclaim addons, leader election among replicas, and the {@link HealthServer} for the
 * kubelet.
 */
public final class OperatorRunner implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(OperatorRunner.class);
  static final String LEASE = "thinvol-operator";
  static final Duration RECONCILE_TERMINATION = Duration.ofSeconds(5);

  private final Operator operator;
  private final HealthServer http;
  private final Addons addons;

  private final AtomicBoolean stopping;

  private OperatorRunner(
      Operator operator, HealthServer http, Addons addons, AtomicBoolean stopping) {
    this.operator = operator;
    this.http = http;
    this.addons = addons;
    this.stopping = stopping;
  }

  /**
   * @param tuning adjusts the JOSDK configuration (tests turn server-side apply off, which the mock
   *     API server lacks)
   * @param healthPort 0 picks a free port; negative serves none
   * @param caller reaches the driver pods' ReclaimSpace services
   * @param copier reaches the driver pods' MoveCopy services (a VolumeMove's cut-over)
   */
  public static OperatorRunner start(
      KubernetesClient client,
      Settings settings,
      boolean leaderElection,
      int healthPort,
      ReclaimCaller caller,
      MoveCopier copier,
      Consumer<io.javaoperatorsdk.operator.api.config.ConfigurationServiceOverrider> tuning)
      throws IOException {
    ReconcileMetrics metrics = new ReconcileMetrics();
    AtomicBoolean stopping = new AtomicBoolean();
    Operator operator =
        new Operator(
            overrider -> {
              overrider
                  .withKubernetesClient(client)
                  .withCloseClientOnStop(false)
                  // SIGTERM must end the process within the kubelet's patience even when a
                  // reconcile hangs on an unreachable API server.
                  .withReconciliationTerminationTimeout(RECONCILE_TERMINATION)
                  .withMetrics(metrics);
              if (leaderElection) {
                overrider.withLeaderElectionConfiguration(leaderElection(settings, stopping));
              }
              tuning.accept(overrider);
            });
    Clock clock = Clock.systemUTC();
    NodePodsGauge nodePods = new NodePodsGauge();
    operator.register(
        new StorageBackendReconciler(settings, clock, new Events(client, clock), nodePods));
    if (settings.snapshotApi()) {
      operator.register(new SnapshotContentLabeller(new Events(client, clock)));
    }
    if (GroupSnapshotModel.deployed(settings)) {
      operator.register(new GroupSnapshotContentLabeller(new Events(client, clock)));
    }
    operator.register(
        new VolumeMoveReconciler(client, settings, copier, new Events(client, clock), clock));
    ReplicationMetrics replications = new ReplicationMetrics();
    operator.register(
        new VolumeReplicationReconciler(
            client, settings, copier, new Events(client, clock), replications, clock));
    operator.register(new NodeEvacuator(client, clock));
    Addons addons =
        Addons.register(
            operator, client, AddonsSettings.defaults(settings.namespace()), caller, clock);
    operator.start();
    HealthServer http =
        healthPort < 0
            ? null
            : HealthServer.start(
                healthPort,
                new InformerHealth(() -> unhealthyEventSources(operator), clock),
                () -> operator.getRuntimeInfo().isStarted(),
                () ->
                    metrics.render()
                        + nodePods.render()
                        + addons.metrics().render()
                        + replications.render());
    log.info(
        "operator started in namespace {} (OpenShift: {}, snapshot API: {}, monitoring API: {})",
        settings.namespace(),
        settings.openShift(),
        settings.snapshotApi(),
        settings.monitoringApi());
    return new OperatorRunner(operator, http, addons, stopping);
  }

  /**
   * The Lease {@value #LEASE} in the operator's namespace. Losing it while running ends the process
   * (another replica leads; the kubelet restarts this one as a candidate); giving it up because the
   * runner is closing does not: JOSDK's own exit would call {@code System.exit} from the shutdown
   * hook, which never returns.
   */
  static LeaderElectionConfiguration leaderElection(Settings settings, AtomicBoolean stopping) {
    return LeaderElectionConfigurationBuilder.aLeaderElectionConfiguration(LEASE)
        .withLeaseNamespace(settings.namespace())
        .withExitOnStopLeading(false)
        .withLeaderCallbacks(
            new LeaderCallbacks(
                () -> log.info("leading (Lease {})", LEASE),
                () -> {
                  if (!stopping.get()) {
                    log.error("lost the Lease {}; exiting so that a new candidate starts", LEASE);
                    new Thread(() -> System.exit(1), "lost-lease-exit").start();
                  }
                },
                leader -> log.info("the leader is {}", leader)))
        .build();
  }

  /** JOSDK's unhealthy event sources, each as {@code controller/event source}. */
  private static Set<String> unhealthyEventSources(Operator operator) {
    Set<String> names = new TreeSet<>();
    operator
        .getRuntimeInfo()
        .unhealthyEventSources()
        .forEach(
            (controller, sources) ->
                sources.keySet().forEach(source -> names.add(controller + "/" + source)));
    return names;
  }

  public Addons addons() {
    return addons;
  }

  public int healthPort() {
    return http.port();
  }

  @Override
  public void close() {
    stopping.set(true);
    if (http != null) {
      http.close();
    }
    operator.stop();
    addons.close();
  }
}
