package io.thinvol.operator.monitoring;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.SharedObject;
import io.thinvol.operator.model.Settings;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The monitoring objects every backend shares, owned by none: the operator's PodMonitor and
 * PrometheusRule and, on OpenShift, cluster monitoring's Role and RoleBinding and the console's
 * dashboard. Made (and corrected) by name while a backend exists, deleted when the last one goes.
 *
 * <p>One instance serves every backend's reconcile, which JOSDK runs in parallel: making and
 * removing happen under one lock, and whether a backend is left is judged from the primary cache
 * less the backends removed already (still cached until their finalizer goes), so that two
 * deletions at once still remove them and a backend reconciled after a removal makes them again.
 */
public final class SharedMonitoring {

  private static final Logger log = LoggerFactory.getLogger(SharedMonitoring.class);

  private final Set<String> removedUids = new HashSet<>();

  /** Makes or corrects the shared objects; nothing where the monitoring API is not served. */
  public synchronized void ensure(KubernetesClient client, Settings settings) {
    if (!MonitoringApi.deployed(settings)) {
      return;
    }
    ensure(client, ScrapeModel.operator(settings), PodMonitor::getSpec, PodMonitor::setSpec);
    ensure(
        client,
        AlertRulesModel.operator(settings),
        PrometheusRule::getSpec,
        PrometheusRule::setSpec);
    if (OpenShiftMonitoringModel.deployed(settings)) {
      ensure(
          client,
          OpenShiftMonitoringModel.prometheusRole(settings),
          Role::getRules,
          Role::setRules);
      ensure(
          client,
          OpenShiftMonitoringModel.prometheusRoleBinding(settings),
          RoleBinding::getSubjects,
          RoleBinding::setSubjects);
      ensure(client, OpenShiftMonitoringModel.dashboard(), ConfigMap::getData, ConfigMap::setData);
    }
  }

  /** Deletes the shared objects unless a backend other than those removed is left. */
  public synchronized void removed(
      KubernetesClient client,
      Settings settings,
      StorageBackend removed,
      Supplier<List<StorageBackend>> cached) {
    List<StorageBackend> backends = cached.get();
    removedUids.retainAll(backends.stream().map(b -> b.getMetadata().getUid()).toList());
    removedUids.add(removed.getMetadata().getUid());
    boolean left = backends.stream().anyMatch(b -> !removedUids.contains(b.getMetadata().getUid()));
    if (left || !MonitoringApi.deployed(settings)) {
      return;
    }
    log.info("the last backend is gone: removing the operator's monitoring objects");
    delete(client, ScrapeModel.operator(settings));
    delete(client, AlertRulesModel.operator(settings));
    if (OpenShiftMonitoringModel.deployed(settings)) {
      delete(client, OpenShiftMonitoringModel.prometheusRoleBinding(settings));
      delete(client, OpenShiftMonitoringModel.prometheusRole(settings));
      delete(client, OpenShiftMonitoringModel.dashboard());
    }
  }

  /**
   * Creates {@code desired} where missing, or writes its {@code content} over a differing one's (an
   * older operator's rules, a person's edit); other fields and labels stay as they are. The write
   * carries the resourceVersion read: a concurrent change fails it, and the reconcile is retried.
   */
  private static <T extends HasMetadata, C> void ensure(
      KubernetesClient client, T desired, Function<T, C> content, BiConsumer<T, C> write) {
    C wanted = content.apply(desired);
    SharedObject.existingOrCreate(client, client.resource(desired), desired)
        .filter(actual -> !Objects.equals(content.apply(actual), wanted))
        .ifPresent(
            actual -> {
              log.info("updating {} {}", desired.getKind(), desired.getMetadata().getName());
              write.accept(actual, wanted);
              client.resource(actual).update();
            });
  }

  private static void delete(KubernetesClient client, HasMetadata object) {
    client.resource(object).delete();
  }
}
