package io.thinvol.e2e.support;

import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.TypedLocalObjectReference;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/** The users' PersistentVolumeClaims and the volumes behind them. */
public final class Claims {

  private static final Duration BOUND_LIMIT = Duration.ofMinutes(3);

  private final KubernetesClient client;

  public Claims(KubernetesClient client) {
    this.client = client;
  }

  /** A claim's shape: its class, size, volume mode, labels and data source (may be null). */
  public record Spec(
      String storageClass,
      String size,
      String volumeMode,
      Map<String, String> labels,
      TypedLocalObjectReference source) {

    public static Spec filesystem(String storageClass, String size) {
      return new Spec(storageClass, size, "Filesystem", Map.of(), null);
    }

    public Spec block() {
      return new Spec(storageClass, size, "Block", labels, source);
    }

    public Spec labelled(Map<String, String> more) {
      return new Spec(storageClass, size, volumeMode, more, source);
    }

    /**
     * Restored from a VolumeSnapshot or cloned from a claim ({@code kind} PersistentVolumeClaim).
     */
    public Spec from(String kind, String name) {
      String group = kind.equals("VolumeSnapshot") ? "snapshot.storage.k8s.io" : null;
      return new Spec(
          storageClass, size, volumeMode, labels, new TypedLocalObjectReference(group, kind, name));
    }
  }

  public PersistentVolumeClaim create(String name, Spec spec) {
    PersistentVolumeClaim claim =
        new PersistentVolumeClaimBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace(Names.APPS)
            .withLabels(spec.labels())
            .endMetadata()
            .withNewSpec()
            .withStorageClassName(spec.storageClass())
            .withAccessModes("ReadWriteOnce")
            .withVolumeMode(spec.volumeMode())
            .withDataSource(spec.source())
            .withNewResources()
            .addToRequests("storage", new Quantity(spec.size()))
            .endResources()
            .endSpec()
            .build();
    return client.resource(claim).create();
  }

  public PersistentVolumeClaim get(String name) {
    return client.persistentVolumeClaims().inNamespace(Names.APPS).withName(name).get();
  }

  /** The bound claim's PersistentVolume (a WaitForFirstConsumer claim binds once a pod uses it). */
  public PersistentVolume awaitVolume(String name) {
    return Waits.until(
        "claim " + name + " to be Bound",
        BOUND_LIMIT,
        () ->
            Optional.ofNullable(get(name))
                .filter(c -> c.getStatus() != null && "Bound".equals(c.getStatus().getPhase()))
                .map(c -> client.persistentVolumes().withName(c.getSpec().getVolumeName()).get()));
  }

  /** The driver's id of the claim's volume (the name of its folder in the data dir). */
  public String volumeHandle(String name) {
    return awaitVolume(name).getSpec().getCsi().getVolumeHandle();
  }

  /** The size the claim's status reports, in bytes. */
  public long capacity(String name) {
    return Quantity.getAmountInBytes(get(name).getStatus().getCapacity().get("storage"))
        .longValueExact();
  }
}
