package io.thinvol.api.v1alpha1;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * Keeps a copy of one claim's volume on a standby node, synced every interval of its class; fails
 * the claim over to it when Kubernetes declares the claim's node dead and fenced, and switches it
 * over when asked. Field for field CSI-Addons' {@code replication.storage.openshift.io/v1alpha1}
 * kind.
 */
@Group(StorageBackend.GROUP)
@Version(StorageBackend.VERSION)
@ShortNames("vr")
@Plural("volumereplications")
@AdditionalPrinterColumn(
    name = "Claim",
    jsonPath = ".spec.dataSource.name",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "Primary",
    jsonPath = ".status.primaryNode",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "Standby",
    jsonPath = ".status.standbyNode",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "State",
    jsonPath = ".status.state",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "Last Sync",
    jsonPath = ".status.lastSyncTime",
    type = AdditionalPrinterColumn.Type.DATE)
@AdditionalPrinterColumn(
    name = "Age",
    jsonPath = ".metadata.creationTimestamp",
    type = AdditionalPrinterColumn.Type.DATE)
public class VolumeReplication
    extends CustomResource<VolumeReplicationSpec, VolumeReplicationStatus> implements Namespaced {

  /** The finalizer: the replica and the sync snapshot are deleted before the object goes. */
  public static final String FINALIZER = StorageBackend.GROUP + "/volume-replication";

  /** On a failed-over claim's old PersistentVolume: {@code <namespace>/<replication>}. */
  public static final String STALE_COPY_OF = StorageBackend.GROUP + "/stale-copy-of";
}
