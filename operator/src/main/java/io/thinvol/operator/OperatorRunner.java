package io.thinvol.operator;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.ConfigurationServiceOverrider;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfigurationBuilder;
import io.thinvol.addons.Addons;
import io.thinvol.addons.AddonsSettings;
import io.thinvol.addons.call.MoveCopier;
import io.thinvol.addons.call.ReclaimCaller;
import io.thinvol.api.kube.Events;
import io.thinvol.api.v1alpha1.ReclaimSpaceCronJob;
import io.thinvol.api.v1alpha1.ReclaimSpaceJob;
import io.thinvol.api.v1alpha1.VolumeMove;
import io.thinvol.api.v1alpha1.VolumeReplication;
import io.thinvol.api.v1alpha1.VolumeReplicationClass;
import io.thinvol.operator.evacuate.NodeEvacuator;
import io.thinvol.operator.health.HealthServer;
import io.thinvol.operator.health.InformerHealth;
import io.thinvol.operator.kinds.KindControllers;
import io.thinvol.operator.kinds.OptionalKinds;
import io.thinvol.operator.model.GroupSnapshotModel;
import io.thinvol.operator.model.Settings;
import io.thinvol.operator.monitoring.NodePodsGauge;
import io.thinvol.operator.move.VolumeMoveReconciler;
import io.thinvol.operator.nodeloss.LostNodeReport;
import io.thinvol.operator.nodeloss.LostVolumesGauge;
import io.thinvol.operator.replicate.ReplicationMetrics;
import io.thinvol.operator.replicate.VolumeReplicationReconciler;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.stream.Stream;
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
  private final OptionalKinds kinds;
  private final HealthServer http;
  private final Addons addons;

  private final AtomicBoolean stopping;
  private final Runnable releaseLease;

  private OperatorRunner(
      Operator operator,
      OptionalKinds kinds,
      HealthServer http,
      Addons addons,
      AtomicBoolean stopping,
      Runnable releaseLease) {
    this.operator = operator;
    this.kinds = kinds;
    this.http = http;
    this.addons = addons;
    this.stopping = stopping;
    this.releaseLease = releaseLease;
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
      Consumer<ConfigurationServiceOverrider> tuning)
      throws IOException {
    return start(
        client, settings, leaderElection, healthPort, caller, copier, tuning, Clock.systemUTC());
  }

  /**
   * As above, on {@code clock}: the time the reconcilers read (deadlines, condition and Event
   * times); tests move it forward past a deadline rather than wait for it.
   */
  public static OperatorRunner start(
      KubernetesClient client,
      Settings settings,
      boolean leaderElection,
      int healthPort,
      ReclaimCaller caller,
      MoveCopier copier,
      Consumer<ConfigurationServiceOverrider> tuning,
      Clock clock)
      throws IOException {
    ReconcileMetrics metrics = new ReconcileMetrics();
    AtomicBoolean stopping = new AtomicBoolean();
    Consumer<ConfigurationServiceOverrider> common =
        overrider ->
            overrider
                .withKubernetesClient(client)
                .withCloseClientOnStop(false)
                // SIGTERM must end the process within the kubelet's patience even when a
                // reconcile hangs on an unreachable API server.
                .withReconciliationTerminationTimeout(RECONCILE_TERMINATION)
                .withMetrics(metrics);
    Operator operator =
        new Operator(
            overrider -> {
              common.accept(overrider);
              if (leaderElection) {
                overrider.withLeaderElectionConfiguration(leaderElection(settings, stopping));
              }
              tuning.accept(overrider);
            });
    // Controllers started late are started by the leader: no election of their own.
    OptionalKinds kinds =
        new OptionalKinds(
            client, common.andThen(tuning).andThen(o -> o.withLeaderElectionConfiguration(null)));
    NodePodsGauge nodePods = new NodePodsGauge();
    LostVolumesGauge lostVolumes = new LostVolumesGauge();
    operator.register(
        new StorageBackendReconciler(
            settings,
            clock,
            new Events(client, clock),
            nodePods,
            kinds,
            new LostNodeReport(client, clock, lostVolumes)));
    if (settings.snapshotApi()) {
      operator.register(new SnapshotContentLabeller(new Events(client, clock)));
    }
    if (GroupSnapshotModel.deployed(settings)) {
      operator.register(new GroupSnapshotContentLabeller(new Events(client, clock)));
    }
    ReplicationMetrics replications = new ReplicationMetrics();
    Addons addons = Addons.of(client, AddonsSettings.defaults(settings.namespace()), caller, clock);
    kinds.register(
        operator,
        List.of(
            new KindControllers(
                "ReclaimSpaceJobs and annotation schedules",
                List.of(ReclaimSpaceJob.class),
                addons::registerJobs),
            new KindControllers(
                "ReclaimSpaceCronJobs",
                List.of(ReclaimSpaceJob.class, ReclaimSpaceCronJob.class),
                addons::registerCronJobs),
            new KindControllers(
                "VolumeMoves and node evacuation",
                List.of(VolumeMove.class),
                moves -> {
                  moves.register(
                      new VolumeMoveReconciler(
                          client, settings, copier, new Events(client, clock), clock));
                  moves.register(new NodeEvacuator(client, clock));
                }),
            new KindControllers(
                "VolumeReplications",
                List.of(VolumeReplication.class, VolumeReplicationClass.class, VolumeMove.class),
                replication ->
                    replication.register(
                        new VolumeReplicationReconciler(
                            client,
                            settings,
                            copier,
                            new Events(client, clock),
                            replications,
                            clock)))));
    operator.start();
    HealthServer http =
        healthPort < 0
            ? null
            : HealthServer.start(
                healthPort,
                new InformerHealth(() -> unhealthyEventSources(operator, kinds), clock),
                () -> operator.getRuntimeInfo().isStarted(),
                kinds::missing,
                () ->
                    metrics.render()
                        + nodePods.render()
                        + lostVolumes.render()
                        + addons.metrics().render()
                        + replications.render());
    log.info(
        "operator started in namespace {} (OpenShift: {}, snapshot API: {}, monitoring API: {})",
        settings.namespace(),
        settings.openShift(),
        settings.snapshotApi(),
        settings.monitoringApi());
    Runnable releaseLease =
        () ->
            operator
                .getConfigurationService()
                .getLeaderElectionConfiguration()
                .filter(election -> election.getIdentity().isPresent())
                .ifPresent(
                    election ->
                        LeaseRelease.release(
                            client,
                            election.getLeaseNamespace().orElse(settings.namespace()),
                            election.getLeaseName(),
                            election.getIdentity().get(),
                            clock));
    return new OperatorRunner(operator, kinds, http, addons, stopping, releaseLease);
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
        .withIdentity(candidate())
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

  /**
   * JOSDK's unhealthy event sources, those of the controllers started late too, each as {@code
   * controller/event source}.
   */
  private static Set<String> unhealthyEventSources(Operator operator, OptionalKinds kinds) {
    Set<String> names = new TreeSet<>();
    List<Operator> operators = new ArrayList<>(kinds.started());
    operators.add(operator);
    for (Operator running : operators) {
      running
          .getRuntimeInfo()
          .unhealthyEventSources()
          .forEach(
              (controller, sources) ->
                  sources.keySet().forEach(source -> names.add(controller + "/" + source)));
    }
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
    boolean first = !stopping.getAndSet(true);
    if (http != null) {
      http.close();
    }
    kinds.close();
    operator.stop();
    addons.close();
    if (first) {
      releaseLease.run();
    }
  }

  /** The pod's name (POD_NAME from the downward API, else HOSTNAME), as the Lease shows it. */
  private static String candidate() {
    return Stream.of(System.getenv("POD_NAME"), System.getenv("HOSTNAME"))
        .filter(name -> name != null && !name.isBlank())
        .findFirst()
        .orElseGet(() -> UUID.randomUUID().toString());
  }
}
