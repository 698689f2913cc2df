package io.thinvol.addons;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.monitoring.Metrics;
import io.javaoperatorsdk.operator.api.reconciler.RetryInfo;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How many times JOSDK reconciled each object, by kind, namespace and name, and the resource
 * version its last reconcile saw.
 */
final class ReconcileCounter implements Metrics {

  private final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();
  private final Map<String, String> lastVersions = new ConcurrentHashMap<>();

  @Override
  public void reconcileCustomResource(
      HasMetadata resource, RetryInfo retryInfo, Map<String, Object> metadata) {
    String key =
        key(
            resource.getKind(),
            resource.getMetadata().getNamespace(),
            resource.getMetadata().getName());
    lastVersions.put(key, resource.getMetadata().getResourceVersion());
    counts.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
  }

  /** The resource version the last reconcile of an object saw, or null before any. */
  String lastVersion(String kind, String namespace, String name) {
    return lastVersions.get(key(kind, namespace, name));
  }

  int of(String kind, String namespace, String name) {
    AtomicInteger count = counts.get(key(kind, namespace, name));
    return count == null ? 0 : count.get();
  }

  private static String key(String kind, String namespace, String name) {
    return kind + "/" + namespace + "/" + name;
  }
}
