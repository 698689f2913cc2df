package io.thinvol.operator;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.thinvol.addons.ClusterFixtures;
import io.thinvol.operator.model.SnapshotContentNode;
import io.thinvol.operator.nodeloss.NodeHealth;
import io.thinvol.testing.PlayedControllers;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The storage controllers a bare API server lacks, played for a move's tests in one background
 * loop, each as the real one acts on what it sees: the snapshot controller and csi-snapshotter
 * (snapshots ready with a handle, or failed where the test says; a pre-provisioned content only by
 * its snapshot handle, and ready only with the node label the node-deployment csi-snapshotter
 * selects on), the external-provisioner (a claim restored from a snapshot on its selected node gets
 * a volume while that node is Ready; a released volume with the Delete policy is deleted),
 * snapshots deleted as the real controllers delete them ({@link PlayedSnapshotDeletion}), the PV
 * controller (a claim naming a volume reserved for it is bound; a volume whose claim is gone is
 * Released) and the pvc-protection controller (a deleted claim no running pod uses goes).
 */
final class PlayedStorage implements AutoCloseable {

  private final KubernetesClient client;
  private final Thread loop;
  private volatile boolean running = true;

  /**
   * Snapshots whose creation fails, with the snapshotter's message: by the end of their name or by
   * the claim they copy.
   */
  final Map<String, String> failingSnapshots = new ConcurrentHashMap<>();

  /**
   * Snapshots the snapshotter leaves alone (never ready), named as for {@link #failingSnapshots}.
   */
  final Set<String> stuckSnapshots = ConcurrentHashMap.newKeySet();

  /** Deleted claims kept from going (a slow pvc-protection controller), by the end of the name. */
  final Set<String> heldClaims = ConcurrentHashMap.newKeySet();

  /** Claims the provisioner leaves Pending (a slow one), by the end of their name. */
  final Set<String> unprovisioned = ConcurrentHashMap.newKeySet();

  /** The volumes the provisioner deleted, in order. */
  final List<String> deletedVolumes = new CopyOnWriteArrayList<>();

  /** The snapshots the nodes' csi-snapshotters deleted (their handles), in order. */
  final List<String> deletedSnapshots = new CopyOnWriteArrayList<>();

  private final PlayedSnapshotDeletion deletion;

  PlayedStorage(KubernetesClient client) {
    this.client = client;
    this.deletion =
        new PlayedSnapshotDeletion(
            client, content -> deletedSnapshots.add(content.at("/status/snapshotHandle").asText()));
    this.loop = new Thread(this::run, "played-storage");
    loop.setDaemon(true);
    loop.start();
  }

  private void run() {
    while (running) {
      try {
        snapshots();
        deletion.pass();
        provisioner();
        pvController();
        claimProtection();
      } catch (KubernetesClientException e) {
        // a conflict with the operator's write: look again on the next turn
      } catch (RuntimeException e) {
        if (running) {
          e.printStackTrace();
        }
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private void snapshots() {
    for (GenericKubernetesResource snapshot :
        client
            .genericKubernetesResources("snapshot.storage.k8s.io/v1", "VolumeSnapshot")
            .inAnyNamespace()
            .list()
            .getItems()) {
      String name = snapshot.getMetadata().getName();
      Map<String, Object> status = map(snapshot.getAdditionalProperties().get("status"));
      Map<String, Object> source =
          map(map(snapshot.getAdditionalProperties().get("spec")).get("source"));
      String claim = String.valueOf(source.get("persistentVolumeClaimName"));
      if (Boolean.TRUE.equals(status.get("readyToUse"))
          || status.containsKey("error")
          || stuckSnapshots.stream().anyMatch(s -> name.endsWith(s) || claim.equals(s))
          || snapshot.getMetadata().getDeletionTimestamp() != null) {
        continue;
      }
      var failure =
          failingSnapshots.entrySet().stream()
              .filter(e -> name.endsWith(e.getKey()) || claim.equals(e.getKey()))
              .findFirst();
      if (failure.isPresent()) {
        writeStatus(
            snapshot,
            Map.of("readyToUse", false, "error", Map.of("message", failure.get().getValue())));
        continue;
      }
      String contentName = (String) source.get("volumeSnapshotContentName");
      boolean preProvisioned = contentName != null;
      if (!preProvisioned) {
        contentName = "snapcontent-" + snapshot.getMetadata().getUid();
        createDynamicContent(contentName, snapshot);
      }
      GenericKubernetesResource content =
          client
              .genericKubernetesResources("snapshot.storage.k8s.io/v1", "VolumeSnapshotContent")
              .withName(contentName)
              .get();
      if (content == null) {
        continue;
      }
      String handle = "snap-" + name;
      if (preProvisioned) {
        Map<String, Object> contentSource =
            map(map(content.getAdditionalProperties().get("spec")).get("source"));
        if (contentSource.get("snapshotHandle") == null) {
          writeStatus(snapshot, PlayedSnapshotController.notPreProvisioned(contentName));
          continue;
        }
        if (content.getMetadata().getLabels() == null
            || !content.getMetadata().getLabels().containsKey(SnapshotContentNode.MANAGED_BY)) {
          continue; // no node's csi-snapshotter (--node-deployment) sees it
        }
        handle = String.valueOf(contentSource.get("snapshotHandle"));
        bind(content, snapshot);
      }
      writeStatus(content, Map.of("readyToUse", true, "snapshotHandle", handle));
      writeStatus(
          snapshot, Map.of("readyToUse", true, "boundVolumeSnapshotContentName", contentName));
    }
  }

  /** A pre-provisioned content bound to its VolumeSnapshot, as the snapshot controller binds. */
  private void bind(GenericKubernetesResource content, GenericKubernetesResource snapshot) {
    client
        .genericKubernetesResources("snapshot.storage.k8s.io/v1", "VolumeSnapshotContent")
        .withName(content.getMetadata().getName())
        .edit(
            latest -> {
              Map<String, Object> spec = map(latest.getAdditionalProperties().get("spec"));
              Map<String, Object> ref = new HashMap<>(map(spec.get("volumeSnapshotRef")));
              ref.put("uid", snapshot.getMetadata().getUid());
              spec.put("volumeSnapshotRef", ref);
              latest.setAdditionalProperty("spec", spec);
              if (!latest
                  .getMetadata()
                  .getFinalizers()
                  .contains(PlayedSnapshotDeletion.CONTENT_BOUND)) {
                latest.getMetadata().getFinalizers().add(PlayedSnapshotDeletion.CONTENT_BOUND);
              }
              return latest;
            });
  }

  /**
   * The content of a dynamic snapshot, made once: a turn whose status write lost a race (the
   * operator labels a new content for its node's csi-snapshotter) finds it made on the next one.
   */
  private void createDynamicContent(String contentName, GenericKubernetesResource snapshot) {
    if (client
            .genericKubernetesResources("snapshot.storage.k8s.io/v1", "VolumeSnapshotContent")
            .withName(contentName)
            .get()
        != null) {
      return;
    }
    GenericKubernetesResource content = new GenericKubernetesResource();
    content.setApiVersion("snapshot.storage.k8s.io/v1");
    content.setKind("VolumeSnapshotContent");
    content.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMeta());
    content.getMetadata().setName(contentName);
    content.getMetadata().setFinalizers(List.of(PlayedSnapshotDeletion.CONTENT_BOUND));
    content.setAdditionalProperty(
        "spec",
        Map.of(
            "deletionPolicy",
            "Delete",
            "driver",
            "local.thinvol.io",
            "source",
            Map.of("volumeHandle", "vol-data"),
            "volumeSnapshotRef",
            Map.of(
                "namespace",
                snapshot.getMetadata().getNamespace(),
                "name",
                snapshot.getMetadata().getName(),
                "uid",
                snapshot.getMetadata().getUid())));
    client.resource(content).create();
  }

  private void writeStatus(GenericKubernetesResource object, Map<String, Object> status) {
    GenericKubernetesResource current = client.resource(object).get();
    if (current == null) {
      return;
    }
    current.setAdditionalProperty("status", status);
    client.resource(current).updateStatus();
  }

  /** A claim restored from a snapshot on a selected node gets a volume there. */
  private void provisioner() {
    for (PersistentVolumeClaim claim :
        client.persistentVolumeClaims().inAnyNamespace().list().getItems()) {
      String node =
          claim.getMetadata().getAnnotations() == null
              ? null
              : claim.getMetadata().getAnnotations().get("volume.kubernetes.io/selected-node");
      if (node == null
          || claim.getSpec().getVolumeName() != null
          || claim.getMetadata().getDeletionTimestamp() != null
          || unprovisioned.stream().anyMatch(claim.getMetadata().getName()::endsWith)
          || !NodeHealth.of(Optional.ofNullable(client.nodes().withName(node).get())).ready()) {
        continue; // the provisioner of a node that is not Ready does not run
      }
      String source =
          claim.getSpec().getDataSource() == null
              ? null
              : claim.getSpec().getDataSource().getName();
      GenericKubernetesResource snapshot =
          client
              .genericKubernetesResources("snapshot.storage.k8s.io/v1", "VolumeSnapshot")
              .inNamespace(claim.getMetadata().getNamespace())
              .withName(source)
              .get();
      if (snapshot == null
          || !Boolean.TRUE.equals(
              map(snapshot.getAdditionalProperties().get("status")).get("readyToUse"))) {
        continue;
      }
      String name = "pvc-" + claim.getMetadata().getUid();
      PersistentVolume volume =
          new PersistentVolumeBuilder(
                  ClusterFixtures.volume(
                      name,
                      "local.thinvol.io",
                      "copy-" + claim.getMetadata().getName(),
                      node,
                      claim.getMetadata().getNamespace(),
                      claim.getMetadata().getName()))
              .editSpec()
              .withPersistentVolumeReclaimPolicy("Delete")
              .endSpec()
              .withStatus(null)
              .build();
      if (client.persistentVolumes().withName(name).get() == null) {
        client.resource(volume).create();
      }
      PlayedControllers.bind(client, volume, claim);
    }
  }

  /**
   * Binds claims to the volumes reserved for them; releases, or deletes, volumes whose claim went.
   */
  private void pvController() {
    for (PersistentVolumeClaim claim :
        client.persistentVolumeClaims().inAnyNamespace().list().getItems()) {
      String volumeName = claim.getSpec().getVolumeName();
      boolean bound = claim.getStatus() != null && "Bound".equals(claim.getStatus().getPhase());
      if (volumeName == null || bound || claim.getMetadata().getDeletionTimestamp() != null) {
        continue;
      }
      PersistentVolume volume = client.persistentVolumes().withName(volumeName).get();
      if (volume == null || volume.getSpec().getClaimRef() == null) {
        continue;
      }
      var ref = volume.getSpec().getClaimRef();
      if (Objects.equals(ref.getNamespace(), claim.getMetadata().getNamespace())
          && Objects.equals(ref.getName(), claim.getMetadata().getName())
          && (ref.getUid() == null || ref.getUid().equals(claim.getMetadata().getUid()))) {
        PlayedControllers.bind(client, volume, claim);
      }
    }
    for (PersistentVolume volume : client.persistentVolumes().list().getItems()) {
      var ref = volume.getSpec().getClaimRef();
      if (ref == null
          || ref.getUid() == null
          || volume.getMetadata().getDeletionTimestamp() != null) {
        continue;
      }
      PersistentVolumeClaim claim =
          client
              .persistentVolumeClaims()
              .inNamespace(ref.getNamespace())
              .withName(ref.getName())
              .get();
      if (claim != null && ref.getUid().equals(claim.getMetadata().getUid())) {
        continue;
      }
      if ("Delete".equals(volume.getSpec().getPersistentVolumeReclaimPolicy())) {
        deletedVolumes.add(volume.getMetadata().getName());
        PlayedControllers.deleteUnused(client, volume);
      } else if (volume.getStatus() == null || !"Released".equals(volume.getStatus().getPhase())) {
        volume.setStatus(new PersistentVolumeStatusBuilder().withPhase("Released").build());
        client.resource(volume).updateStatus();
      }
    }
  }

  /** A deleted claim goes once no pod that a node runs uses it. */
  private void claimProtection() {
    List<Pod> pods = client.pods().inAnyNamespace().list().getItems();
    for (PersistentVolumeClaim claim :
        client.persistentVolumeClaims().inAnyNamespace().list().getItems()) {
      if (claim.getMetadata().getDeletionTimestamp() == null
          || heldClaims.stream().anyMatch(claim.getMetadata().getName()::endsWith)) {
        continue;
      }
      boolean used = pods.stream().anyMatch(pod -> PlayedVolumeBinder.uses(pod, claim));
      if (!used) {
        PlayedControllers.releaseStorageProtection(client, claim);
      }
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object value) {
    return value instanceof Map<?, ?> m ? (Map<String, Object>) m : new HashMap<>();
  }

  @Override
  public void close() {
    running = false;
    loop.interrupt();
    try {
      loop.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
