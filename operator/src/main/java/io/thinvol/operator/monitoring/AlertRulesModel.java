package io.thinvol.operator.monitoring;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.Names;
import io.thinvol.operator.model.Settings;
import java.util.List;
import java.util.Map;

/**
 * The PrometheusRules: one for each backend ({@link AlertRules#groups}) and the operator's shared
 * one ({@link AlertRules#operatorGroups}).
 */
public final class AlertRulesModel {

  private AlertRulesModel() {}

  /** {@code thinvol-<backend>}, owned by the backend. */
  public static PrometheusRule backend(StorageBackend backend, Settings settings) {
    return rule(
        "thinvol-" + backend.getMetadata().getName(),
        settings,
        Names.labels(backend),
        AlertRules.groups(backend));
  }

  /** The operator's and the reclaim alerts, while any backend exists. */
  public static PrometheusRule operator(Settings settings) {
    return rule(
        ScrapeModel.OPERATOR_OBJECTS, settings, Names.sharedLabels(), AlertRules.operatorGroups());
  }

  private static PrometheusRule rule(
      String name,
      Settings settings,
      Map<String, String> labels,
      List<Map<String, Object>> groups) {
    PrometheusRule rule = new PrometheusRule();
    rule.setMetadata(
        new ObjectMetaBuilder()
            .withName(name)
            .withNamespace(settings.namespace())
            .withLabels(labels)
            .build());
    rule.setSpec(Map.of("groups", groups));
    return rule;
  }
}
