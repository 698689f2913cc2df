package io.thinvol.operator.model;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.thinvol.api.BackendNames;
import io.thinvol.api.kube.VolumeNodes;
import io.thinvol.operator.model.SnapshotContentNode.Action;
import io.thinvol.operator.model.SnapshotContentNode.Outcome;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Which node's csi-snapshotter serves a VolumeGroupSnapshotContent of a thinvol driver, and which
 * node the group's VolumeGroupSnapshotClass must be labelled for. With {@code --node-deployment}
 * the sidecar (external-snapshotter v8.6, {@code cmd/csi-snapshotter/main.go}) reads group contents
 * <em>and group snapshot classes</em> through informers selecting {@value
 * SnapshotContentNode#MANAGED_BY}{@code =<its node>}; no snapshot-controller labels either, so
 * without the operator no group snapshot is ever made.
 */
public final class GroupSnapshotContentNode {

  private GroupSnapshotContentNode() {}

  /** The volumes a dynamic group content copies; empty for a pre-provisioned one. */
  public static List<String> volumeHandles(VolumeGroupSnapshotContent content) {
    return Optional.ofNullable(content.getSpec())
        .map(VolumeGroupSnapshotContent.Spec::getSource)
        .map(VolumeGroupSnapshotContent.Source::getVolumeHandles)
        .orElse(List.of());
  }

  /** Whether the content is a thinvol driver's. */
  public static boolean thinvols(VolumeGroupSnapshotContent content) {
    return content.getSpec() != null
        && BackendNames.backendOfDriver(content.getSpec().getDriver()).isPresent();
  }

  /**
   * @param volumes the PersistentVolumes whose {@code spec.csi.volumeHandle} is a given handle
   */
  public static Outcome decide(
      VolumeGroupSnapshotContent content, Function<String, List<PersistentVolume>> volumes) {
    Map<String, String> labels = content.getMetadata().getLabels();
    if (!thinvols(content)
        || (labels != null && labels.containsKey(SnapshotContentNode.MANAGED_BY))) {
      return Outcome.leave();
    }
    String name = content.getMetadata().getName();
    String driver = content.getSpec().getDriver();
    List<String> handles = volumeHandles(content);
    if (handles.isEmpty()) {
      return new Outcome(
          Action.ASK_ADMIN,
          null,
          "PreProvisionedContent",
          String.format(
              "a pre-provisioned group content names no node, and csi-snapshotter"
                  + " --node-deployment serves only group contents labelled with theirs; label it"
                  + " with the node whose data dir holds the group: kubectl label"
                  + " volumegroupsnapshotcontent %s %s=<node>",
              name, SnapshotContentNode.MANAGED_BY));
    }
    List<String> unknown = new ArrayList<>();
    Set<String> nodes = new LinkedHashSet<>();
    for (String handle : handles) {
      List<String> ofVolume =
          volumes.apply(handle).stream()
              .filter(v -> v.getSpec() != null && v.getSpec().getCsi() != null)
              .filter(v -> driver.equals(v.getSpec().getCsi().getDriver()))
              .filter(v -> handle.equals(v.getSpec().getCsi().getVolumeHandle()))
              .flatMap(v -> VolumeNodes.of(v).stream())
              .distinct()
              .toList();
      if (ofVolume.size() == 1) {
        nodes.add(ofVolume.get(0));
      } else {
        unknown.add(handle);
      }
    }
    if (!unknown.isEmpty()) {
      return new Outcome(
          Action.WAIT,
          null,
          "SourceVolumeUnknown",
          String.format(
              "no PersistentVolume of driver %s pinned to one node is known yet for volumeHandles"
                  + " %s, so the node whose csi-snapshotter must make this group is unknown; the"
                  + " operator labels it when they show up. Should they be gone, label it yourself:"
                  + " kubectl label volumegroupsnapshotcontent %s %s=<node holding the volumes>",
              driver, unknown, name, SnapshotContentNode.MANAGED_BY));
    }
    String node = nodes.iterator().next();
    if (nodes.size() == 1) {
      return new Outcome(Action.LABEL, node, null, null);
    }
    // Any node's driver refuses a group with volumes elsewhere (FAILED_PRECONDITION), which the
    // snapshot controller shows in the VolumeGroupSnapshot's status.error: label it for the first.
    return new Outcome(
        Action.LABEL,
        node,
        "SourceNodesDiffer",
        String.format(
            "the volumes of this group are on nodes %s; thinvol volumes are node-local and a group"
                + " is made by one node's driver, which refuses volumes of other nodes. Snapshot"
                + " claims of one node together (delete this VolumeGroupSnapshot)",
            nodes));
  }

  /**
   * The node the class of these contents must be labelled for: that of the oldest labelled content
   * still to be made (not deleted), those that failed last; empty when none waits. Serves one node
   * at a time: the sidecar reads a class only when it makes a group, and a class can carry one
   * node's label.
   */
  public static Optional<String> classNode(List<VolumeGroupSnapshotContent> contents) {
    return contents.stream()
        .filter(c -> nodeLabel(c).isPresent())
        .filter(c -> c.getMetadata().getDeletionTimestamp() == null)
        .filter(c -> c.getStatus() == null || c.getStatus().getVolumeGroupSnapshotHandle() == null)
        .min(
            Comparator.comparing((VolumeGroupSnapshotContent c) -> failed(c))
                .thenComparing(
                    c -> c.getMetadata().getCreationTimestamp(),
                    Comparator.nullsLast(Comparator.naturalOrder()))
                .thenComparing(c -> c.getMetadata().getName()))
        .flatMap(GroupSnapshotContentNode::nodeLabel);
  }

  private static boolean failed(VolumeGroupSnapshotContent content) {
    return content.getStatus() != null && content.getStatus().getError() != null;
  }

  private static Optional<String> nodeLabel(VolumeGroupSnapshotContent content) {
    return Optional.ofNullable(content.getMetadata())
        .map(ObjectMeta::getLabels)
        .map(labels -> labels.get(SnapshotContentNode.MANAGED_BY));
  }
}
