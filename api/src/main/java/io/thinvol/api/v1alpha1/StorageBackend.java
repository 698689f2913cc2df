package io.thinvol.api.v1alpha1;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * One deployment of the thinvol CSI driver: its driver name is {@code <name>.thinvol.io}, its
 * volumes live under the data dir of every selected node. Cluster-scoped.
 */
@Group(StorageBackend.GROUP)
@Version(StorageBackend.VERSION)
@ShortNames("sb")
@Plural("storagebackends")
@AdditionalPrinterColumn(
    name = "Driver",
    jsonPath = ".status.driverName",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "Ready Nodes",
    jsonPath = ".status.nodes.ready",
    type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(
    name = "Desired",
    jsonPath = ".status.nodes.desired",
    type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(
    name = "Ready",
    jsonPath = ".status.conditions[?(@.type==\"Ready\")].status",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "Age",
    jsonPath = ".metadata.creationTimestamp",
    type = AdditionalPrinterColumn.Type.DATE)
@ValidationRule(
    value = "self.metadata.name.size() <= 52",
    message =
        "the name may have at most 52 characters: the driver name <name>.thinvol.io has at most 63")
public class StorageBackend extends CustomResource<StorageBackendSpec, StorageBackendStatus> {

  public static final String GROUP = "thinvol.io";
  public static final String VERSION = "v1alpha1";

  /** The CSI driver name of this backend. */
  public String driverName() {
    return getMetadata().getName() + "." + GROUP;
  }
}
