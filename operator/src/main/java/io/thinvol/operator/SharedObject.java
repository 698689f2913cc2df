package io.thinvol.operator;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.net.HttpURLConnection;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An object that serves every backend and so is owned by none, reached by its fixed name only: the
 * operator's RBAC names the cluster-scoped ones (create alone cannot be limited to a name).
 */
public final class SharedObject {

  private static final Logger log = LoggerFactory.getLogger(SharedObject.class);

  private SharedObject() {}

  /**
   * The object as it is, or empty when it was missing and {@code desired} has just been created.
   */
  public static <T extends HasMetadata> Optional<T> existingOrCreate(
      KubernetesClient client, Resource<T> named, T desired) {
    T actual = named.get();
    if (actual != null) {
      return Optional.of(actual);
    }
    try {
      client.resource(desired).create();
      log.info("created {} {}", desired.getKind(), desired.getMetadata().getName());
      return Optional.empty();
    } catch (KubernetesClientException e) {
      if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
        throw e;
      }
      // another backend's reconcile made it first
      return Optional.of(named.get());
    }
  }
}
