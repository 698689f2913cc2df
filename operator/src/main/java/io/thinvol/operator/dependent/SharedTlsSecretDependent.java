package io.thinvol.operator.dependent;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.dependent.Creator;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.SecondaryToPrimaryMapper;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.Names;
import io.thinvol.operator.model.SelfSignedCertificate;
import java.net.HttpURLConnection;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A TLS Secret of the operator's namespace that every backend's node pods mount: one fixed name, so
 * that the operator's RBAC names the Secrets it may read and change and its informer watches only
 * that one (a {@code metadata.name} field selector). Created once and never updated by a reconcile:
 * a new certificate on every pass would change what every node serves.
 *
 * <p>Shared, so owned by no backend: no owner reference (deleting one backend must not take the
 * others' certificate) and no annotation naming one backend; a change to it concerns every backend
 * the operator knows, so each is reconciled (a deleted Secret is made again at once). It outlives
 * the last backend, like the shared node ClusterRole.
 */
abstract class SharedTlsSecretDependent extends KubernetesDependentResource<Secret, StorageBackend>
    implements Creator<Secret, StorageBackend> {

  private final String name;

  SharedTlsSecretDependent(String name) {
    super(Secret.class);
    this.name = name;
  }

  /** The new certificate, for names that are the same for every backend. */
  abstract SelfSignedCertificate certificate(String namespace);

  @Override
  protected Secret desired(StorageBackend backend, Context<StorageBackend> context) {
    String namespace = Dependents.settings(context).namespace();
    return certificate(namespace).tlsSecret(name, namespace, Names.sharedLabels());
  }

  /**
   * Another backend's reconcile, running at the same time, may have made it first (409): that one
   * serves this backend too, so this is no failure.
   */
  @Override
  public Secret create(Secret desired, StorageBackend backend, Context<StorageBackend> context) {
    try {
      return super.create(desired, backend, context);
    } catch (KubernetesClientException e) {
      if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
        throw e;
      }
      return context
          .getClient()
          .secrets()
          .inNamespace(desired.getMetadata().getNamespace())
          .withName(name)
          .require();
    }
  }

  /** Told apart from the other Secret by name, without making a key pair to learn it. */
  @Override
  protected ResourceID targetSecondaryResourceID(
      StorageBackend backend, Context<StorageBackend> context) {
    return new ResourceID(name, Dependents.settings(context).namespace());
  }

  @Override
  protected Optional<SecondaryToPrimaryMapper<Secret>> getSecondaryToPrimaryMapper(
      EventSourceContext<StorageBackend> context) {
    return Optional.of(
        secret ->
            context
                .getPrimaryCache()
                .list()
                .map(ResourceID::fromResource)
                .collect(Collectors.toSet()));
  }

  /** None: the Secret serves every backend (see the class comment). */
  @Override
  protected void addSecondaryToPrimaryMapperAnnotations(Secret desired, StorageBackend primary) {}
}
