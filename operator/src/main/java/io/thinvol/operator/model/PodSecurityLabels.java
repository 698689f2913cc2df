package io.thinvol.operator.model;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The labels the operator's namespace needs so that Pod Security admission lets the privileged node
 * pods in. On OpenShift the label synchroniser would otherwise rewrite them from the SCCs it sees,
 * so it is switched off for this namespace.
 */
public final class PodSecurityLabels {

  private PodSecurityLabels() {}

  public static Map<String, String> desired(Settings settings) {
    Map<String, String> labels = new LinkedHashMap<>();
    for (String mode : new String[] {"enforce", "audit", "warn"}) {
      labels.put("pod-security.kubernetes.io/" + mode, "privileged");
    }
    if (settings.openShift()) {
      labels.put("security.openshift.io/scc.podSecurityLabelSync", "false");
    }
    return labels;
  }

  /** The labels to set on a namespace that has {@code current}; empty when none is missing. */
  public static Map<String, String> missing(Map<String, String> current, Settings settings) {
    Map<String, String> missing = new LinkedHashMap<>();
    desired(settings)
        .forEach(
            (key, value) -> {
              if (current == null || !value.equals(current.get(key))) {
                missing.put(key, value);
              }
            });
    return missing;
  }
}
