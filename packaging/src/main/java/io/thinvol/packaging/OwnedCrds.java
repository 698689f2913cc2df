package io.thinvol.packaging;

import java.util.List;

/**
 * How the OpenShift console presents each CRD the operator owns: its name and description, the
 * kinds it makes, and the spec and status fields shown with the widget for each (the CSV's {@code
 * customresourcedefinitions.owned}, filled with each CRD's name and version from {@code crds/}).
 */
final class OwnedCrds {

  /** A field shown in the console: path under spec or status, and how to show it. */
  record Descriptor(String path, String displayName, String... xDescriptors) {}

  /** An owned CRD as the console presents it. */
  record Owned(
      String kind,
      String displayName,
      String description,
      List<String> creates,
      List<Descriptor> spec,
      List<Descriptor> status) {}

  static final List<Owned> OWNED =
      List.of(
          new Owned(
              "StorageBackend",
              "Storage Backend",
              "One deployment of the thinvol CSI driver: its nodes, data directory, StorageClasses"
                  + " and reclaim defaults.",
              List.of("DaemonSet", "CSIDriver", "StorageClass", "ServiceAccount", "Secret"),
              List.of(
                  new Descriptor(
                      "sparseFile.dataDir",
                      "Data directory",
                      "urn:alm:descriptor:com.tectonic.ui:text"),
                  new Descriptor(
                      "sparseFile.filesystem",
                      "Filesystem",
                      "urn:alm:descriptor:com.tectonic.ui:select:ext4",
                      "urn:alm:descriptor:com.tectonic.ui:select:xfs"),
                  new Descriptor(
                      "sparseFile.overprovisionRatio",
                      "Overprovision ratio",
                      "urn:alm:descriptor:com.tectonic.ui:number"),
                  new Descriptor("storageClasses", "Storage classes"),
                  new Descriptor(
                      "nodeSelector",
                      "Node selector",
                      "urn:alm:descriptor:com.tectonic.ui:selector:core:v1:Node"),
                  new Descriptor(
                      "tolerations", "Tolerations", "urn:alm:descriptor:io.kubernetes:Tolerations"),
                  new Descriptor(
                      "reclaimSpace.schedule",
                      "Reclaim schedule",
                      "urn:alm:descriptor:com.tectonic.ui:text"),
                  new Descriptor(
                      "reclaimSpace.maxConcurrentPerNode",
                      "Reclaims per node",
                      "urn:alm:descriptor:com.tectonic.ui:number")),
              List.of(
                  new Descriptor(
                      "conditions", "Conditions", "urn:alm:descriptor:io.kubernetes.conditions"),
                  new Descriptor("driverName", "Driver", "urn:alm:descriptor:text"),
                  new Descriptor("nodes.ready", "Ready nodes", "urn:alm:descriptor:text"),
                  new Descriptor("nodeProblems", "Node problems"))),
          new Owned(
              "ReclaimSpaceJob",
              "Reclaim Space Job",
              "Gives the space a PVC's filesystem no longer uses back to its node's disk, once.",
              List.of(),
              List.of(
                  new Descriptor(
                      "target.persistentVolumeClaim",
                      "PersistentVolumeClaim",
                      "urn:alm:descriptor:io.kubernetes:PersistentVolumeClaim"),
                  new Descriptor(
                      "backOffLimit",
                      "Back-off limit",
                      "urn:alm:descriptor:com.tectonic.ui:number"),
                  new Descriptor(
                      "retryDeadlineSeconds",
                      "Retry deadline (s)",
                      "urn:alm:descriptor:com.tectonic.ui:number"),
                  new Descriptor(
                      "mode",
                      "Mode",
                      "urn:alm:descriptor:com.tectonic.ui:select:Auto",
                      "urn:alm:descriptor:com.tectonic.ui:select:NodeOnly",
                      "urn:alm:descriptor:com.tectonic.ui:select:ControllerOnly")),
              List.of(
                  new Descriptor("result", "Result", "urn:alm:descriptor:text"),
                  new Descriptor("reclaimedSpace", "Reclaimed", "urn:alm:descriptor:text"),
                  new Descriptor("message", "Message", "urn:alm:descriptor:text"),
                  new Descriptor(
                      "conditions", "Conditions", "urn:alm:descriptor:io.kubernetes.conditions"))),
          new Owned(
              "ReclaimSpaceCronJob",
              "Reclaim Space Cron Job",
              "Creates ReclaimSpaceJobs on a cron schedule, spread over a stagger window.",
              List.of("ReclaimSpaceJob"),
              List.of(
                  new Descriptor("schedule", "Schedule", "urn:alm:descriptor:com.tectonic.ui:text"),
                  new Descriptor(
                      "concurrencyPolicy",
                      "Concurrency policy",
                      "urn:alm:descriptor:com.tectonic.ui:select:Forbid",
                      "urn:alm:descriptor:com.tectonic.ui:select:Replace"),
                  new Descriptor(
                      "suspend", "Suspend", "urn:alm:descriptor:com.tectonic.ui:booleanSwitch")),
              List.of(
                  new Descriptor("lastScheduleTime", "Last schedule", "urn:alm:descriptor:text"),
                  new Descriptor("nextScheduleTime", "Next schedule", "urn:alm:descriptor:text"),
                  new Descriptor("active", "Active job"))),
          new Owned(
              "VolumeMove",
              "Volume Move",
              "Moves a claim's data to another node: a pre-copy while the application runs, then a"
                  + " cut-over that copies the changed blocks and rebinds the claim.",
              List.of("PersistentVolumeClaim", "PersistentVolume", "VolumeSnapshot"),
              List.of(
                  new Descriptor(
                      "persistentVolumeClaim",
                      "PersistentVolumeClaim",
                      "urn:alm:descriptor:io.kubernetes:PersistentVolumeClaim"),
                  new Descriptor(
                      "targetNode", "Target node", "urn:alm:descriptor:io.kubernetes:Node"),
                  new Descriptor(
                      "keepSourceUntil",
                      "Keep source until",
                      "urn:alm:descriptor:com.tectonic.ui:select:Bound",
                      "urn:alm:descriptor:com.tectonic.ui:select:Mounted")),
              List.of(
                  new Descriptor("phase", "Phase", "urn:alm:descriptor:text"),
                  new Descriptor("bytesCopied", "Copied", "urn:alm:descriptor:text"),
                  new Descriptor("message", "Message", "urn:alm:descriptor:text"),
                  new Descriptor(
                      "conditions", "Conditions", "urn:alm:descriptor:io.kubernetes.conditions"))),
          new Owned(
              "VolumeReplicationClass",
              "Volume Replication Class",
              "How claims of a StorageBackend are replicated to a standby node: the interval"
                  + " between syncs and the nodes a standby may be.",
              List.of(),
              List.of(
                  new Descriptor(
                      "provisioner", "Provisioner", "urn:alm:descriptor:com.tectonic.ui:text")),
              List.of()),
          new Owned(
              "VolumeReplication",
              "Volume Replication",
              "Keeps a copy of a claim on a standby node, synced every interval; fails the claim"
                  + " over to it when its node is declared dead and fenced, switches it over when"
                  + " asked.",
              List.of("VolumeMove"),
              List.of(
                  new Descriptor("dataSource", "PersistentVolumeClaim"),
                  new Descriptor(
                      "volumeReplicationClass", "Class", "urn:alm:descriptor:com.tectonic.ui:text"),
                  new Descriptor(
                      "replicationState",
                      "Replication state",
                      "urn:alm:descriptor:com.tectonic.ui:select:primary",
                      "urn:alm:descriptor:com.tectonic.ui:select:secondary",
                      "urn:alm:descriptor:com.tectonic.ui:select:resync"),
                  new Descriptor(
                      "autoResync",
                      "Resync a failed node's copy",
                      "urn:alm:descriptor:com.tectonic.ui:booleanSwitch")),
              List.of(
                  new Descriptor("state", "State", "urn:alm:descriptor:text"),
                  new Descriptor("primaryNode", "Primary node", "urn:alm:descriptor:text"),
                  new Descriptor("standbyNode", "Standby node", "urn:alm:descriptor:text"),
                  new Descriptor("lastSyncTime", "Last sync", "urn:alm:descriptor:text"),
                  new Descriptor("message", "Message", "urn:alm:descriptor:text"),
                  new Descriptor(
                      "conditions", "Conditions", "urn:alm:descriptor:io.kubernetes.conditions"))));

  private OwnedCrds() {}
}
