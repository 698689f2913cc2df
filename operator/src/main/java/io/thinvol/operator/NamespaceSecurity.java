package io.thinvol.operator;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.thinvol.operator.model.PodSecurityLabels;
import io.thinvol.operator.model.Settings;
import io.thinvol.operator.monitoring.OpenShiftMonitoringModel;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Labels the operator's namespace for privileged pods and, on OpenShift, for cluster monitoring,
 * writing only when a label is missing.
 */
final class NamespaceSecurity {

  private static final Logger log = LoggerFactory.getLogger(NamespaceSecurity.class);

  private NamespaceSecurity() {}

  static void ensure(KubernetesClient client, Settings settings) {
    Namespace namespace = client.namespaces().withName(settings.namespace()).get();
    if (namespace == null) {
      return; // nothing to label; the DaemonSet's own Events will say why no pod starts
    }
    Map<String, String> current = namespace.getMetadata().getLabels();
    Map<String, String> missing = new LinkedHashMap<>(PodSecurityLabels.missing(current, settings));
    missing.putAll(OpenShiftMonitoringModel.missingNamespaceLabels(current, settings));
    if (missing.isEmpty()) {
      return;
    }
    log.info("labelling namespace {}: {}", settings.namespace(), missing);
    client
        .namespaces()
        .withName(settings.namespace())
        .edit(
            ns -> {
              ns.getMetadata().getLabels().putAll(missing);
              return ns;
            });
  }
}
