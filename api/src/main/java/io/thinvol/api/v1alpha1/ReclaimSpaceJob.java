package io.thinvol.api.v1alpha1;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * One reclaim of the space a volume's filesystem no longer uses, field-compatible with CSI-Addons'
 * {@code csiaddons.openshift.io/v1alpha1} ReclaimSpaceJob.
 */
@Group(StorageBackend.GROUP)
@Version(StorageBackend.VERSION)
@ShortNames("rsj")
@Plural("reclaimspacejobs")
@AdditionalPrinterColumn(
    name = "PVC",
    jsonPath = ".spec.target.persistentVolumeClaim",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "Result",
    jsonPath = ".status.result",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "Reclaimed",
    jsonPath = ".status.reclaimedSpace",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "Retries",
    jsonPath = ".status.retries",
    type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(
    name = "Age",
    jsonPath = ".metadata.creationTimestamp",
    type = AdditionalPrinterColumn.Type.DATE)
public class ReclaimSpaceJob extends CustomResource<ReclaimSpaceJobSpec, ReclaimSpaceJobStatus>
    implements Namespaced {}
