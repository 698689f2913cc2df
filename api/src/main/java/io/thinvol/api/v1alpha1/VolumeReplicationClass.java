package io.thinvol.api.v1alpha1;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * How claims of one StorageBackend are replicated to a standby node: the interval between syncs and
 * where the standby may be. Cluster-scoped; field for field CSI-Addons' {@code
 * replication.storage.openshift.io/v1alpha1} kind.
 */
@Group(StorageBackend.GROUP)
@Version(StorageBackend.VERSION)
@ShortNames("vrc")
@Plural("volumereplicationclasses")
@AdditionalPrinterColumn(
    name = "Provisioner",
    jsonPath = ".spec.provisioner",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "Interval",
    jsonPath = ".spec.parameters.schedulingInterval",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "Age",
    jsonPath = ".metadata.creationTimestamp",
    type = AdditionalPrinterColumn.Type.DATE)
public class VolumeReplicationClass
    extends CustomResource<VolumeReplicationClassSpec, VolumeReplicationClass.NoStatus> {

  /** The interval between syncs, a Go duration ({@code 1m}, {@code 90s}). */
  public static final String SCHEDULING_INTERVAL = "schedulingInterval";

  /** Equality-based node labels the standby must have: {@code key=value[,key=value]}. */
  public static final String STANDBY_NODE_SELECTOR = "standbyNodeSelector";

  /** As upstream: a class has no status. */
  public static final class NoStatus implements KubernetesResource {}
}
