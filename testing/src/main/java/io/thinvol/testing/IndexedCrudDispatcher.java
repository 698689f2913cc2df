package io.thinvol.testing;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.server.mock.KubernetesAttributesExtractor;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesResponseComposer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.crud.AttributeSet;
import io.fabric8.mockwebserver.http.MockResponse;
import java.net.HttpURLConnection;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.function.Supplier;

/**
 * The fabric8 CRUD mock with its store indexed ({@link StoreIndex}): a GET, a LIST of one resource,
 * a named DELETE and the lookups of create, update and patch read the objects of their resource
 * instead of the whole store, with the same answers in the same order. Everything else (watches,
 * discovery, collection deletes) is the mock's own. It shares the mock's lock and resource version
 * (private fields of fabric8 7.x, read once here: a fabric8 upgrade that renames them fails every
 * test at start, not silently).
 */
class IndexedCrudDispatcher extends KubernetesCrudDispatcher {

  private final StoreIndex index = new StoreIndex();
  private final ReadWriteLock lock = internal("lock", ReadWriteLock.class);
  private final AtomicLong resourceVersion = internal("resourceVersion", AtomicLong.class);
  private final KubernetesAttributesExtractor extractor =
      (KubernetesAttributesExtractor) attributeExtractor;
  private final KubernetesResponseComposer composer = (KubernetesResponseComposer) responseComposer;

  @Override
  public MockResponse handleGet(String path) {
    AttributeSet query = extractor.fromPath(path);
    if (path.contains("watch=true") || !StoreIndex.covers(query)) {
      return super.handleGet(path);
    }
    List<String> items = locked(lock.readLock(), () -> matching(query));
    if (query.containsKey(KubernetesAttributesExtractor.NAME)) {
      return items.isEmpty()
          ? new MockResponse().setResponseCode(HttpURLConnection.HTTP_NOT_FOUND)
          : new MockResponse().setResponseCode(HttpURLConnection.HTTP_OK).setBody(items.get(0));
    }
    if (items.isEmpty()) {
      return super.handleGet(path); // an empty list, or the discovery document of the path
    }
    return new MockResponse()
        .setResponseCode(HttpURLConnection.HTTP_OK)
        .setBody(composer.compose(items, String.valueOf(resourceVersion.get())));
  }

  @Override
  public MockResponse handleDelete(String path) {
    AttributeSet query = extractor.fromPath(path);
    if (!StoreIndex.covers(query) || !query.containsKey(KubernetesAttributesExtractor.NAME)) {
      return super.handleDelete(path);
    }
    return locked(
        lock.writeLock(),
        () -> {
          Optional<AttributeSet> key =
              index.candidates(query).stream().filter(k -> k.matches(query)).findFirst();
          if (key.isEmpty()) {
            return new MockResponse().setResponseCode(HttpURLConnection.HTTP_NOT_FOUND);
          }
          String stored = map.get(key.get());
          delete(path, query, key.get(), stored);
          return new MockResponse().setResponseCode(HttpURLConnection.HTTP_OK).setBody(stored);
        });
  }

  /** As the mock deletes: at once without finalizers, else marked for deletion once. */
  private void delete(String path, AttributeSet query, AttributeSet key, String stored) {
    GenericKubernetesResource resource =
        Serialization.unmarshal(stored, GenericKubernetesResource.class);
    if (resource.getFinalizers().isEmpty()) {
      processEvent(path, query, key, null, null);
    } else if (!resource.isMarkedForDeletion()) {
      resource
          .getMetadata()
          .setDeletionTimestamp(
              ZonedDateTime.now(ZoneOffset.UTC)
                  .truncatedTo(ChronoUnit.SECONDS)
                  .format(DateTimeFormatter.ISO_OFFSET_DATE_TIME));
      resource.getMetadata().setResourceVersion(String.valueOf(requestResourceVersion()));
      processEvent(path, query, key, resource, Serialization.asJson(resource));
    }
  }

  /**
   * Stores the object at {@code path} again with a new resourceVersion, through {@link
   * #processEvent} (so through admission): a controller's write, made while handling a request.
   */
  void storeAgain(String path) {
    AttributeSet query = extractor.fromPath(path);
    Map.Entry<AttributeSet, String> stored = findResource(query);
    if (stored == null) {
      return;
    }
    GenericKubernetesResource object =
        Serialization.unmarshal(stored.getValue(), GenericKubernetesResource.class);
    object.getMetadata().setResourceVersion(String.valueOf(requestResourceVersion()));
    processEvent(path, query, stored.getKey(), object, Serialization.asJson(object));
  }

  /** Called by create, update and patch under the mock's lock. */
  @Override
  public Map.Entry<AttributeSet, String> findResource(AttributeSet attributes) {
    if (!StoreIndex.covers(attributes)) {
      return super.findResource(attributes);
    }
    return index.candidates(attributes).stream()
        .filter(k -> k.matches(attributes))
        .findFirst()
        .map(k -> Map.entry(k, map.get(k)))
        .orElse(null);
  }

  /** Every change of the store passes here, under the mock's write lock. */
  @Override
  public void processEvent(
      String path,
      AttributeSet pathAttributes,
      AttributeSet oldAttributes,
      GenericKubernetesResource resource,
      String newState) {
    // The key the mock stores the object under, computed as the mock does and before it (a CRD's
    // registration changes how its objects' keys are computed).
    AttributeSet newAttributes = null;
    if (newState != null) {
      newAttributes =
          resource != null ? extractor.extract(resource) : extractor.fromResource(newState);
      if (!newAttributes.containsKey(KubernetesAttributesExtractor.PLURAL)) {
        newAttributes = AttributeSet.merge(pathAttributes, newAttributes);
      }
    }
    super.processEvent(path, pathAttributes, oldAttributes, resource, newState);
    if (oldAttributes != null) {
      index.removed(oldAttributes);
    }
    if (newAttributes != null) {
      index.stored(newAttributes);
    }
  }

  @Override
  public void reset() {
    locked(
        lock.writeLock(),
        () -> {
          super.reset();
          index.clear();
          return null;
        });
  }

  private List<String> matching(AttributeSet query) {
    List<String> items = new ArrayList<>();
    for (AttributeSet key : index.candidates(query)) {
      if (key.matches(query)) {
        items.add(map.get(key));
      }
    }
    return items;
  }

  private static <T> T locked(Lock lock, Supplier<T> work) {
    lock.lock();
    try {
      return work.get();
    } finally {
      lock.unlock();
    }
  }

  private <T> T internal(String field, Class<T> type) {
    try {
      var declared = KubernetesCrudDispatcher.class.getDeclaredField(field);
      declared.setAccessible(true);
      return type.cast(declared.get(this));
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(
          "the fabric8 mock has no field " + field + " of " + type.getSimpleName(), e);
    }
  }
}
