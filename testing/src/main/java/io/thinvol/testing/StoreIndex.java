package io.thinvol.testing;

import io.fabric8.kubernetes.client.server.mock.KubernetesAttributesExtractor;
import io.fabric8.mockwebserver.crud.Attribute;
import io.fabric8.mockwebserver.crud.AttributeSet;
import io.fabric8.mockwebserver.crud.AttributeType;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The keys of the mock's store by resource (plural) and by resource and name, so that a request
 * reads the objects of its resource instead of every object of the store: the fabric8 mock matches
 * each request against the whole store, which at thousands of objects costs milliseconds a request
 * (a real API server reads a key range of etcd). The index only narrows the candidates: the caller
 * still matches each against the query, in the store's order (which the sets keep: a stored object
 * is removed and added again on each change, in the index as in the store). Not thread-safe: used
 * under the store's lock.
 */
final class StoreIndex {

  private static final String PLURAL = KubernetesAttributesExtractor.PLURAL;
  private static final String NAME = KubernetesAttributesExtractor.NAME;

  private final Map<Attribute, Set<AttributeSet>> byResource = new HashMap<>();
  private final Map<List<Attribute>, Set<AttributeSet>> byName = new HashMap<>();

  void stored(AttributeSet key) {
    Attribute plural = key.getAttribute(PLURAL);
    if (plural == null) {
      return; // no query of a resource matches it
    }
    byResource.computeIfAbsent(plural, p -> new LinkedHashSet<>()).add(key);
    Attribute name = key.getAttribute(NAME);
    if (name != null) {
      byName.computeIfAbsent(List.of(plural, name), n -> new LinkedHashSet<>()).add(key);
    }
  }

  void removed(AttributeSet key) {
    Attribute plural = key.getAttribute(PLURAL);
    if (plural == null) {
      return;
    }
    remove(byResource, plural, key);
    Attribute name = key.getAttribute(NAME);
    if (name != null) {
      remove(byName, List.of(plural, name), key);
    }
  }

  /** Whether {@link #candidates} answers {@code query}: it names a single resource. */
  static boolean covers(AttributeSet query) {
    return plain(query.getAttribute(PLURAL));
  }

  /** The keys that may match a query the index {@link #covers}, in the store's order. */
  Set<AttributeSet> candidates(AttributeSet query) {
    Attribute plural = query.getAttribute(PLURAL);
    Attribute name = query.getAttribute(NAME);
    return plain(name)
        ? byName.getOrDefault(List.of(plural, name), Set.of())
        : byResource.getOrDefault(plural, Set.of());
  }

  void clear() {
    byResource.clear();
    byName.clear();
  }

  /** An attribute the stored key must have as it is (not a selector's IN, EXISTS or negation). */
  private static boolean plain(Attribute attribute) {
    return attribute != null
        && attribute.getType() == AttributeType.WITH
        && attribute.getValues().size() == 1;
  }

  private static <K> void remove(Map<K, Set<AttributeSet>> index, K bucket, AttributeSet key) {
    Set<AttributeSet> keys = index.get(bucket);
    if (keys != null && keys.remove(key) && keys.isEmpty()) {
      index.remove(bucket);
    }
  }
}
