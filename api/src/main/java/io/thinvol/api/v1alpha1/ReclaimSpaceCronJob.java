package io.thinvol.api.v1alpha1;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * ReclaimSpaceJobs on a schedule, field-compatible with CSI-Addons' {@code
 * csiaddons.openshift.io/v1alpha1} ReclaimSpaceCronJob.
 */
@Group(StorageBackend.GROUP)
@Version(StorageBackend.VERSION)
@ShortNames("rscj")
@Plural("reclaimspacecronjobs")
@AdditionalPrinterColumn(
    name = "Schedule",
    jsonPath = ".spec.schedule",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "Suspend",
    jsonPath = ".spec.suspend",
    type = AdditionalPrinterColumn.Type.BOOLEAN)
@AdditionalPrinterColumn(
    name = "Active",
    jsonPath = ".status.active.name",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "Last Schedule",
    jsonPath = ".status.lastScheduleTime",
    type = AdditionalPrinterColumn.Type.DATE)
// A string, not a date: kubectl prints a date column as the time since it, and a time still to
// come as "<invalid>"; the next run is always to come, so it is shown as the time itself.
@AdditionalPrinterColumn(
    name = "Next",
    jsonPath = ".status.nextScheduleTime",
    type = AdditionalPrinterColumn.Type.STRING,
    priority = 1)
@AdditionalPrinterColumn(
    name = "Age",
    jsonPath = ".metadata.creationTimestamp",
    type = AdditionalPrinterColumn.Type.DATE)
public class ReclaimSpaceCronJob
    extends CustomResource<ReclaimSpaceCronJobSpec, ReclaimSpaceCronJobStatus>
    implements Namespaced {}
