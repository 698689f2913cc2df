package io.thinvol.e2e.support;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The users' VolumeReplicationClasses and VolumeReplications, made as {@code kubectl apply} makes
 * them (docs/replication.md) and watched through their status.
 */
public final class Replications {

  public static final ResourceDefinitionContext CLASS =
      new ResourceDefinitionContext.Builder()
          .withGroup("thinvol.io")
          .withVersion("v1alpha1")
          .withKind("VolumeReplicationClass")
          .withPlural("volumereplicationclasses")
          .withNamespaced(false)
          .build();
  public static final ResourceDefinitionContext REPLICATION =
      new ResourceDefinitionContext.Builder()
          .withGroup("thinvol.io")
          .withVersion("v1alpha1")
          .withKind("VolumeReplication")
          .withPlural("volumereplications")
          .withNamespaced(true)
          .build();

  private final KubernetesClient client;

  public Replications(KubernetesClient client) {
    this.client = client;
  }

  /**
   * A class of the suite's driver with a sync every {@code interval}; the operator chooses the
   * standby (on the kit's two nodes: the one the claim is not on).
   */
  public void createClass(String name, String interval) {
    GenericKubernetesResource replicationClass = new GenericKubernetesResource();
    replicationClass.setApiVersion("thinvol.io/v1alpha1");
    replicationClass.setKind("VolumeReplicationClass");
    replicationClass.setMetadata(new ObjectMetaBuilder().withName(name).build());
    replicationClass.setAdditionalProperty(
        "spec",
        Map.of("provisioner", Names.DRIVER, "parameters", Map.of("schedulingInterval", interval)));
    Resources.of(client, CLASS).resource(replicationClass).create();
  }

  public void deleteClass(String name) {
    Resources.of(client, CLASS).withName(name).delete();
  }

  /** A replication of the claim, primary, with a failed node's copy resynced when it returns. */
  public void create(String name, String replicationClass, String claim) {
    GenericKubernetesResource replication = new GenericKubernetesResource();
    replication.setApiVersion("thinvol.io/v1alpha1");
    replication.setKind("VolumeReplication");
    replication.setMetadata(
        new ObjectMetaBuilder().withName(name).withNamespace(Names.APPS).build());
    replication.setAdditionalProperty(
        "spec",
        Map.of(
            "volumeReplicationClass",
            replicationClass,
            "dataSource",
            Map.of("kind", "PersistentVolumeClaim", "name", claim),
            "replicationState",
            "primary",
            "autoResync",
            true));
    Resources.of(client, REPLICATION).inNamespace(Names.APPS).resource(replication).create();
  }

  public GenericKubernetesResource get(String name) {
    return Resources.of(client, REPLICATION).inNamespace(Names.APPS).withName(name).get();
  }

  /** A field of the replication's status, empty when unset. */
  public Optional<Object> status(String name, String... path) {
    String[] full = new String[path.length + 1];
    full[0] = "status";
    System.arraycopy(path, 0, full, 1, path.length);
    return Resources.field(get(name), full);
  }

  /** Waits until the replication's status satisfies {@code wanted}; the replication. */
  public GenericKubernetesResource await(
      String name, String what, Duration within, Predicate<GenericKubernetesResource> wanted) {
    return Waits.until(
        "VolumeReplication " + name + ": " + what,
        within,
        () -> Optional.ofNullable(get(name)).filter(wanted),
        () -> Resources.field(get(name), "status").orElse("no status"));
  }

  /**
   * Waits for a sync that began after {@code after} and succeeded (its start is the sync point);
   * the replication.
   */
  public GenericKubernetesResource awaitSyncAfter(String name, Instant after, Duration within) {
    return await(
        name,
        "a sync begun after " + after,
        within,
        r ->
            Resources.field(r, "status", "lastSyncTime")
                .map(t -> Instant.parse(t.toString()).isAfter(after))
                .orElse(false));
  }

  /** As {@code kubectl patch vr --type merge -p '{"spec":{"replicationState":...}}'}. */
  public void ask(String name, String replicationState) {
    Resources.of(client, REPLICATION)
        .inNamespace(Names.APPS)
        .withName(name)
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            client
                .getKubernetesSerialization()
                .asJson(Map.of("spec", Map.of("replicationState", replicationState))));
  }

  /** Deletes the replication and waits until its finalizer let it go (replica deleted). */
  public void delete(String name, Duration within) {
    Resources.of(client, REPLICATION).inNamespace(Names.APPS).withName(name).delete();
    Waits.untilTrue(
        "VolumeReplication " + name + " to be deleted", within, () -> get(name) == null);
  }
}
