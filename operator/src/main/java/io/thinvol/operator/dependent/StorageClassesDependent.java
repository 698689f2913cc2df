package io.thinvol.operator.dependent;

import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.CRUDKubernetesBulkDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.Names;
import io.thinvol.operator.model.StorageClassModel;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The backend's StorageClasses, as many as its spec lists; removed ones are deleted. A change to a
 * field the API server does not let one update (parameters, reclaim policy, ...) recreates the
 * class: bound claims and their volumes keep what they were provisioned with.
 */
@KubernetesDependent(informer = @Informer(labelSelector = Dependents.SELECTOR))
public class StorageClassesDependent extends RecreatedOnChangeDependent<StorageClass>
    implements CRUDKubernetesBulkDependentResource<StorageClass, StorageBackend> {

  public StorageClassesDependent() {
    super(StorageClass.class);
  }

  @Override
  public Map<ResourceID, StorageClass> desiredResources(
      StorageBackend backend, Context<StorageBackend> context) {
    return StorageClassModel.desired(backend).stream()
        .collect(Collectors.toMap(ResourceID::fromResource, Function.identity()));
  }

  @Override
  public Map<ResourceID, StorageClass> getSecondaryResources(
      StorageBackend backend, Context<StorageBackend> context) {
    String name = backend.getMetadata().getName();
    return context
        .getSecondaryResourcesAsStream(StorageClass.class)
        .filter(c -> name.equals(c.getMetadata().getLabels().get(Names.BACKEND_LABEL)))
        .collect(Collectors.toMap(ResourceID::fromResource, Function.identity()));
  }

  @Override
  protected boolean needsRecreate(StorageClass actual, StorageClass desired) {
    return StorageClassModel.needsRecreate(actual, desired);
  }
}
