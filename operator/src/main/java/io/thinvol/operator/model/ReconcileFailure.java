package io.thinvol.operator.model;

import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.AggregatedOperatorException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Why a reconcile ended in an exception, as a condition reason and a message a person can act on.
 * The workflow gathers the failures of its dependents; each is named by the object it writes.
 *
 * @param reason CamelCase: Forbidden, Invalid, Conflict or ReconcileFailed
 */
public record ReconcileFailure(String reason, String message) {

  public static ReconcileFailure of(Exception failure) {
    List<String> parts = new ArrayList<>();
    String reason = "ReconcileFailed";
    if (failure instanceof AggregatedOperatorException aggregated
        && !aggregated.getAggregatedExceptions().isEmpty()) {
      for (Map.Entry<String, Exception> dependent :
          aggregated.getAggregatedExceptions().entrySet()) {
        parts.add("writing the " + dependent.getKey() + " failed: " + text(dependent.getValue()));
        reason = reason(dependent.getValue(), reason);
      }
    } else {
      parts.add(text(failure));
      reason = reason(failure, reason);
    }
    String advice =
        reason.equals("Forbidden")
            ? "; the operator's RBAC does not allow it: install the operator with the RBAC of its"
                + " release (on OpenShift with openshift.enabled, see docs/install.md)"
            : "; the operator retries with backoff and on every change";
    return new ReconcileFailure(reason, String.join("; ", parts) + advice);
  }

  private static String reason(Throwable failure, String fallback) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof KubernetesClientException api) {
        return switch (api.getCode()) {
          case 403 -> "Forbidden";
          case 409 -> "Conflict";
          case 422 -> "Invalid";
          default -> fallback;
        };
      }
    }
    return fallback;
  }

  /** The API server's message when there is one (it names the object and the refused verb). */
  private static String text(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof KubernetesClientException api
          && api.getStatus() != null
          && api.getStatus().getMessage() != null) {
        return api.getStatus().getMessage();
      }
    }
    Throwable root = failure;
    while (root.getCause() != null) {
      root = root.getCause();
    }
    return root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
  }
}
