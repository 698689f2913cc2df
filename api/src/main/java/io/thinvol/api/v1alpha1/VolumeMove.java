package io.thinvol.api.v1alpha1;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * Moves one claim's data to another node: a pre-copy while the application runs, then, once no pod
 * uses the claim, a cut-over that copies only the changed blocks and rebinds the claim (same name,
 * labels, annotations and spec) to a new volume on the target node.
 */
@Group(StorageBackend.GROUP)
@Version(StorageBackend.VERSION)
@ShortNames("volmove")
@Plural("volumemoves")
@AdditionalPrinterColumn(
    name = "PVC",
    jsonPath = ".spec.persistentVolumeClaim",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "From",
    jsonPath = ".status.sourceNode",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "To",
    jsonPath = ".status.targetNode",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "Phase",
    jsonPath = ".status.phase",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "Copied",
    jsonPath = ".status.bytesCopied",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "Age",
    jsonPath = ".metadata.creationTimestamp",
    type = AdditionalPrinterColumn.Type.DATE)
public class VolumeMove extends CustomResource<VolumeMoveSpec, VolumeMoveStatus>
    implements Namespaced {

  /** The label on the moves a node's evacuation made: the node's name. */
  public static final String EVACUATED_NODE = StorageBackend.GROUP + "/evacuated-node";

  /** The node annotation that asks for every thinvol volume of the node to be moved off it. */
  public static final String EVACUATE = StorageBackend.GROUP + "/evacuate";
}
