package io.thinvol.operator.dependent;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.thinvol.api.v1alpha1.StorageBackend;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A dependent whose object has fields the API server refuses to update: when one of them differs,
 * the object is deleted, and created again once it is gone, instead of updated.
 *
 * @param <R> the object's kind
 */
public abstract class RecreatedOnChangeDependent<R extends HasMetadata>
    extends CRUDKubernetesDependentResource<R, StorageBackend> {

  private static final Logger log = LoggerFactory.getLogger(RecreatedOnChangeDependent.class);

  protected RecreatedOnChangeDependent(Class<R> type) {
    super(type);
  }

  /** Whether a field the API server refuses to update differs. */
  protected abstract boolean needsRecreate(R actual, R desired);

  @Override
  public R update(R actual, R desired, StorageBackend backend, Context<StorageBackend> context) {
    if (!needsRecreate(actual, desired)) {
      return super.update(actual, desired, backend, context);
    }
    log.info(
        "recreating {} {}: a field that cannot be updated differs",
        actual.getKind(),
        actual.getMetadata().getName());
    context.getClient().resource(actual).withTimeoutInMillis(30_000).delete();
    return create(desired, backend, context);
  }
}
