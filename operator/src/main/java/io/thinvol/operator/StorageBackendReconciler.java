package io.thinvol.operator;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.javaoperatorsdk.operator.api.reconciler.Cleaner;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.DeleteControl;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.Workflow;
import io.javaoperatorsdk.operator.api.reconciler.dependent.Dependent;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.thinvol.api.kube.Events;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.api.v1alpha1.StorageBackendStatus;
import io.thinvol.operator.dependent.AddonsTlsSecretDependent;
import io.thinvol.operator.dependent.AlertRulesDependent;
import io.thinvol.operator.dependent.CsiDriverDependent;
import io.thinvol.operator.dependent.Dependents;
import io.thinvol.operator.dependent.MonitoringApiServed;
import io.thinvol.operator.dependent.NodeDaemonSetDependent;
import io.thinvol.operator.dependent.NodeNetworkPolicyDependent;
import io.thinvol.operator.dependent.NodePodMonitorDependent;
import io.thinvol.operator.dependent.NodeRoleBindingDependent;
import io.thinvol.operator.dependent.NodeRoleDependent;
import io.thinvol.operator.dependent.NodeServiceAccountDependent;
import io.thinvol.operator.dependent.SnapshotClassesWanted;
import io.thinvol.operator.dependent.SnapshotMetadataApi;
import io.thinvol.operator.dependent.SnapshotMetadataEndpointDependent;
import io.thinvol.operator.dependent.SnapshotMetadataServiceDependent;
import io.thinvol.operator.dependent.SnapshotMetadataTlsSecretDependent;
import io.thinvol.operator.dependent.StorageClassesDependent;
import io.thinvol.operator.dependent.VolumeGroupSnapshotClassDependent;
import io.thinvol.operator.dependent.VolumeSnapshotClassDependent;
import io.thinvol.operator.kinds.OptionalKinds;
import io.thinvol.operator.model.DegradedStatus;
import io.thinvol.operator.model.ReconcileFailure;
import io.thinvol.operator.model.Settings;
import io.thinvol.operator.model.StatusModel;
import io.thinvol.operator.monitoring.NodePodsGauge;
import io.thinvol.operator.monitoring.SharedMonitoring;
import io.thinvol.operator.nodeloss.LostNodeReport;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deploys a StorageBackend: identity and permissions, the CSIDriver and TLS Secret, then the node
 * DaemonSet, then the StorageClasses; and reports how far that got. Owned objects carry an owner
 * reference to the (cluster-scoped) StorageBackend, so deleting it removes them all.
 */
@Workflow(
    explicitInvocation = true,
    dependents = {
      @Dependent(name = "service-account", type = NodeServiceAccountDependent.class),
      @Dependent(name = "role", type = NodeRoleDependent.class),
      @Dependent(name = "role-binding", type = NodeRoleBindingDependent.class, dependsOn = "role"),
      @Dependent(name = "csi-driver", type = CsiDriverDependent.class),
      @Dependent(name = "addons-tls", type = AddonsTlsSecretDependent.class),
      @Dependent(name = "network-policy", type = NodeNetworkPolicyDependent.class),
      @Dependent(
          name = "node",
          type = NodeDaemonSetDependent.class,
          dependsOn = {"service-account", "role-binding", "csi-driver", "addons-tls"}),
      @Dependent(
          name = "snapshot-class",
          type = VolumeSnapshotClassDependent.class,
          activationCondition = VolumeSnapshotClassDependent.SnapshotApi.class,
          reconcilePrecondition = SnapshotClassesWanted.class,
          dependsOn = "csi-driver"),
      @Dependent(
          name = "group-snapshot-class",
          type = VolumeGroupSnapshotClassDependent.class,
          activationCondition = VolumeGroupSnapshotClassDependent.GroupSnapshotApi.class,
          reconcilePrecondition = SnapshotClassesWanted.class,
          dependsOn = "csi-driver"),
      @Dependent(
          name = "snapshot-metadata-tls",
          type = SnapshotMetadataTlsSecretDependent.class,
          activationCondition = SnapshotMetadataApi.class),
      @Dependent(
          name = "snapshot-metadata-endpoint",
          type = SnapshotMetadataEndpointDependent.class,
          activationCondition = SnapshotMetadataApi.class),
      @Dependent(
          name = "snapshot-metadata-service",
          type = SnapshotMetadataServiceDependent.class,
          activationCondition = SnapshotMetadataApi.class,
          dependsOn = {"snapshot-metadata-tls", "snapshot-metadata-endpoint"}),
      @Dependent(
          name = "node-pod-monitor",
          type = NodePodMonitorDependent.class,
          activationCondition = MonitoringApiServed.class),
      @Dependent(
          name = "alert-rules",
          type = AlertRulesDependent.class,
          activationCondition = MonitoringApiServed.class),
      @Dependent(
          name = "storage-classes",
          type = StorageClassesDependent.class,
          dependsOn = "csi-driver")
    })
@ControllerConfiguration(name = "storagebackend")
public class StorageBackendReconciler
    implements Reconciler<StorageBackend>, Cleaner<StorageBackend> {

  // Until every node is ready the status is refreshed on this period as well as on events.
  static final Duration WHILE_NOT_READY = Duration.ofSeconds(30);

  // A refused backend is checked again on this period: what blocks it is not watched.
  static final Duration WHILE_REFUSED = Duration.ofSeconds(60);

  private static final Logger log = LoggerFactory.getLogger(StorageBackendReconciler.class);

  private final Settings settings;
  private final Clock clock;
  private final Registrations registrations = new Registrations();
  private final VolumesInUse volumesInUse = new VolumesInUse();
  private final ClusterNodes clusterNodes = new ClusterNodes();
  private final DeploymentRefusals refusals = new DeploymentRefusals(volumesInUse, clusterNodes);
  private final NodeClusterRoleBindings nodeBindings = new NodeClusterRoleBindings();
  private final RolloutProgress rollouts = new RolloutProgress();
  private final StatusAnnouncements announcements;
  private final SharedMonitoring sharedMonitoring = new SharedMonitoring();
  private final NodePodsGauge nodePods;
  private final LostNodeReport lostNodes;
  private final OptionalKinds kinds;
  private final BackendDeletion deletion;

  /**
   * @param nodePods told each backend's node pods as its DaemonSet's status says
   * @param kinds says which CRDs other controllers wait for, which every backend reports
   * @param lostNodes reports the claims on lost nodes (io.thinvol.operator.nodeloss)
   */
  public StorageBackendReconciler(
      Settings settings,
      Clock clock,
      Events events,
      NodePodsGauge nodePods,
      OptionalKinds kinds,
      LostNodeReport lostNodes) {
    this.settings = settings;
    this.kinds = kinds;
    this.clock = clock;
    this.nodePods = nodePods;
    this.lostNodes = lostNodes;
    this.announcements = new StatusAnnouncements(events);
    this.deletion =
        new BackendDeletion(
            settings,
            clock,
            events,
            volumesInUse,
            nodeBindings,
            sharedMonitoring,
            nodePods,
            lostNodes,
            rollouts);
  }

  @Override
  public UpdateControl<StorageBackend> reconcile(
      StorageBackend backend, Context<StorageBackend> context) {
    DeploymentRefusals.Refusal refusal =
        refusals
            .of(backend, context.getPrimaryCache().list().toList(), context.getClient())
            .orElse(null);
    StorageBackendStatus status;
    if (refusal != null) {
      // Nothing is deployed for a spec that cannot be fully honoured.
      status = StatusModel.refused(backend, refusal.reason(), refusal.message(), clock.instant());
    } else {
      NamespaceSecurity.ensure(context.getClient(), settings);
      NodeClusterRole.ensure(context.getClient(), settings);
      sharedMonitoring.ensure(context.getClient(), settings);
      // Every backend's node pods, those of one whose deletion waits too: they still run.
      nodeBindings.bind(
          context.getClient(), settings, () -> context.getPrimaryCache().list().toList());
      Dependents.provide(context, settings);
      context.managedWorkflowAndDependentResourceContext().reconcileManagedWorkflow();
      Instant now = clock.instant();
      nodePods.record(
          backend.getMetadata().getName(), context.getSecondaryResource(DaemonSet.class));
      status =
          rollouts.judge(
              backend,
              StatusModel.of(
                  backend,
                  context.getSecondaryResource(DaemonSet.class),
                  registrations.nodesWith(backend.driverName()),
                  context.getSecondaryResources(Pod.class).stream().toList(),
                  now),
              now);
      Optional<String> missing = kinds.missing();
      if (missing.isPresent()) {
        status = DegradedStatus.crdMissing(backend, status, missing.get(), now);
      }
    }
    status = lostNodes.report(backend, volumesInUse.volumesOf(backend), status);
    StorageBackendStatus before = backend.getStatus();
    if (!BackendStatusWrites.same(before, status)) {
      BackendStatusWrites.write(backend, status, context);
      // Once written, so a retry does not repeat it.
      announcements.announce(backend, before, status);
    }
    UpdateControl<StorageBackend> control = UpdateControl.noUpdate();
    if (refusal != null) {
      return control.rescheduleAfter(WHILE_REFUSED);
    }
    return StatusModel.isReady(status) ? control : control.rescheduleAfter(WHILE_NOT_READY);
  }

  @Override
  public List<EventSource<?, StorageBackend>> prepareEventSources(
      EventSourceContext<StorageBackend> context) {
    List<EventSource<?, StorageBackend>> sources = new ArrayList<>();
    sources.add(registrations.eventSource(context));
    sources.add(NodePods.eventSource(context, settings.namespace()));
    sources.addAll(volumesInUse.eventSources(context));
    sources.add(clusterNodes.eventSource(context));
    sources.addAll(lostNodes.eventSources(context));
    sources.add(kinds.eventSource(context));
    return sources;
  }

  /**
   * Deletion waits while claims or volumes use the backend (removing the driver would strand them);
   * then every object it created is deleted and the finalizer goes.
   */
  @Override
  public DeleteControl cleanup(StorageBackend backend, Context<StorageBackend> context) {
    return deletion.cleanup(backend, context);
  }

  /**
   * A reconcile that failed (a dependent the API server refused, an unreachable server): Degraded
   * with the reason, and a Warning Event when the reason is news. JOSDK retries as configured.
   */
  @Override
  public ErrorStatusUpdateControl<StorageBackend> updateErrorStatus(
      StorageBackend backend, Context<StorageBackend> context, Exception e) {
    ReconcileFailure failure = ReconcileFailure.of(e);
    log.warn("reconciling StorageBackend {} failed: {}", backend.getMetadata().getName(), failure);
    StorageBackendStatus before = backend.getStatus();
    StorageBackendStatus status = DegradedStatus.failed(backend, failure, clock.instant());
    if (!BackendStatusWrites.same(before, status)) {
      try {
        BackendStatusWrites.write(backend, status, context);
        announcements.announce(backend, before, status);
      } catch (RuntimeException writeFailed) {
        log.warn(
            "cannot record the failure on StorageBackend {}: {}",
            backend.getMetadata().getName(),
            writeFailed.getMessage());
      }
    }
    return ErrorStatusUpdateControl.noStatusUpdate();
  }
}
