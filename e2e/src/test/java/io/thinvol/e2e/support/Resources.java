package io.thinvol.e2e.support;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The kinds the suite reads without typed models (the product's and the snapshot API's), named in
 * full so that no discovery is needed: a kind whose CRD is gone reads as empty.
 */
public final class Resources {

  public static final ResourceDefinitionContext STORAGE_BACKEND =
      cluster("thinvol.io", "v1alpha1", "StorageBackend", "storagebackends");
  public static final ResourceDefinitionContext RECLAIM_SPACE_JOB =
      namespaced("thinvol.io", "v1alpha1", "ReclaimSpaceJob", "reclaimspacejobs");
  public static final ResourceDefinitionContext RECLAIM_SPACE_CRON_JOB =
      namespaced("thinvol.io", "v1alpha1", "ReclaimSpaceCronJob", "reclaimspacecronjobs");
  public static final ResourceDefinitionContext VOLUME_MOVE =
      namespaced("thinvol.io", "v1alpha1", "VolumeMove", "volumemoves");
  public static final ResourceDefinitionContext VOLUME_SNAPSHOT =
      namespaced("snapshot.storage.k8s.io", "v1", "VolumeSnapshot", "volumesnapshots");
  public static final ResourceDefinitionContext VOLUME_SNAPSHOT_CONTENT =
      cluster("snapshot.storage.k8s.io", "v1", "VolumeSnapshotContent", "volumesnapshotcontents");
  public static final ResourceDefinitionContext VOLUME_SNAPSHOT_CLASS =
      cluster("snapshot.storage.k8s.io", "v1", "VolumeSnapshotClass", "volumesnapshotclasses");
  public static final ResourceDefinitionContext VOLUME_GROUP_SNAPSHOT =
      namespaced(
          "groupsnapshot.storage.k8s.io", "v1", "VolumeGroupSnapshot", "volumegroupsnapshots");
  public static final ResourceDefinitionContext VOLUME_GROUP_SNAPSHOT_CONTENT =
      cluster(
          "groupsnapshot.storage.k8s.io",
          "v1",
          "VolumeGroupSnapshotContent",
          "volumegroupsnapshotcontents");
  public static final ResourceDefinitionContext VOLUME_GROUP_SNAPSHOT_CLASS =
      cluster(
          "groupsnapshot.storage.k8s.io",
          "v1",
          "VolumeGroupSnapshotClass",
          "volumegroupsnapshotclasses");
  public static final ResourceDefinitionContext VOLUME_ATTRIBUTES_CLASS =
      cluster("storage.k8s.io", "v1", "VolumeAttributesClass", "volumeattributesclasses");
  public static final ResourceDefinitionContext PERSISTENT_VOLUME =
      cluster("", "v1", "PersistentVolume", "persistentvolumes");
  private static final ResourceDefinitionContext POD = namespaced("", "v1", "Pod", "pods");
  private static final ResourceDefinitionContext CLAIM =
      namespaced("", "v1", "PersistentVolumeClaim", "persistentvolumeclaims");

  /** The users' kinds, in the order they are deleted: pods free the volumes snapshots copy. */
  static final List<ResourceDefinitionContext> APPS_KINDS =
      List.of(
          POD,
          VOLUME_GROUP_SNAPSHOT,
          VOLUME_SNAPSHOT,
          RECLAIM_SPACE_CRON_JOB,
          RECLAIM_SPACE_JOB,
          VOLUME_MOVE,
          CLAIM);

  private Resources() {}

  public static MixedOperation<
          GenericKubernetesResource,
          GenericKubernetesResourceList,
          Resource<GenericKubernetesResource>>
      of(KubernetesClient client, ResourceDefinitionContext kind) {
    return client.genericKubernetesResources(kind);
  }

  /** The CSI driver of a PersistentVolume, snapshot content or class; null for none. */
  @SuppressWarnings("unchecked")
  public static String driver(GenericKubernetesResource object) {
    Map<String, Object> fields = object.getAdditionalProperties();
    if (fields.get("driver") instanceof String driver) {
      return driver;
    }
    Object spec = fields.get("spec");
    if (!(spec instanceof Map)) {
      return null;
    }
    Object driver = ((Map<String, Object>) spec).get("driver");
    Object csi = ((Map<String, Object>) spec).get("csi");
    if (driver == null && csi instanceof Map) {
      driver = ((Map<String, Object>) csi).get("driver");
    }
    return driver instanceof String ? (String) driver : null;
  }

  /** A field of a custom resource by its path ("status", "readyToUse"), empty when unset. */
  @SuppressWarnings("unchecked")
  public static Optional<Object> field(GenericKubernetesResource object, String... path) {
    Object value = object == null ? null : object.getAdditionalProperties();
    for (String key : path) {
      if (!(value instanceof Map)) {
        return Optional.empty();
      }
      value = ((Map<String, Object>) value).get(key);
    }
    return Optional.ofNullable(value);
  }

  private static ResourceDefinitionContext cluster(
      String group, String version, String kind, String plural) {
    return context(group, version, kind, plural, false);
  }

  private static ResourceDefinitionContext namespaced(
      String group, String version, String kind, String plural) {
    return context(group, version, kind, plural, true);
  }

  private static ResourceDefinitionContext context(
      String group, String version, String kind, String plural, boolean namespaced) {
    return new ResourceDefinitionContext.Builder()
        .withGroup(group)
        .withVersion(version)
        .withKind(kind)
        .withPlural(plural)
        .withNamespaced(namespaced)
        .build();
  }
}
