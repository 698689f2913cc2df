package io.thinvol.addons;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.monitoring.Metrics;
import io.javaoperatorsdk.operator.api.reconciler.RetryInfo;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** How many times JOSDK reconciled each object, by kind, namespace and name. */
final class ReconcileCounter implements Metrics {

  private final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();

  @Override
  public void reconcileCustomResource(
      HasMetadata resource, RetryInfo retryInfo, Map<String, Object> metadata) {
    counts
        .computeIfAbsent(
            key(
                resource.getKind(),
                resource.getMetadata().getNamespace(),
                resource.getMetadata().getName()),
            k -> new AtomicInteger())
        .incrementAndGet();
  }

  int of(String kind, String namespace, String name) {
    AtomicInteger count = counts.get(key(kind, namespace, name));
    return count == null ? 0 : count.get();
  }

  private static String key(String kind, String namespace, String name) {
    return kind + "/" + namespace + "/" + name;
  }
}
