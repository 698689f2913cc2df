package io.thinvol.operator.model;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.api.BackendNames;
import io.thinvol.api.kube.VolumeNodes;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Which node's csi-snapshotter serves a VolumeSnapshotContent of a thinvol driver. With {@code
 * --node-deployment} the sidecar lists and watches only the contents labelled {@value
 * #MANAGED_BY}{@code =<its node>}: it creates, reports and deletes no other. Only a
 * snapshot-controller started with {@code --enable-distributed-snapshotting} sets that label (on
 * the dynamic contents it creates); OpenShift's managed one does not, so the operator labels what
 * it can: a dynamic content with the node of its source volume's PersistentVolume. A label is never
 * guessed: without exactly one node known for certain, the content is left to the admin.
 */
public final class SnapshotContentNode {

  /** The label the node-deployment csi-snapshotter selects on, valued with a node's name. */
  public static final String MANAGED_BY = "snapshot.storage.kubernetes.io/managed-by";

  /** What to do with a content. */
  public enum Action {
    /** Not the operator's to label: another driver's, or labelled already. */
    LEAVE,
    LABEL,
    /** The source volume's PersistentVolume is not known (yet): try again when it shows up. */
    WAIT,
    /** Only an admin can tell the node: say how to label it. */
    ASK_ADMIN
  }

  /**
   * @param node for {@link Action#LABEL}
   * @param reason and {@code message}: for {@link Action#WAIT} and {@link Action#ASK_ADMIN}, a
   *     Warning's
   */
  public record Outcome(Action action, String node, String reason, String message) {
    static Outcome leave() {
      return new Outcome(Action.LEAVE, null, null, null);
    }
  }

  private SnapshotContentNode() {}

  /** The volume a dynamic content copies; empty for a pre-provisioned one. */
  public static Optional<String> volumeHandle(VolumeSnapshotContent content) {
    return Optional.ofNullable(content.getSpec())
        .map(VolumeSnapshotContent.Spec::getSource)
        .map(VolumeSnapshotContent.Source::getVolumeHandle)
        .filter(handle -> !handle.isEmpty());
  }

  /** The volume handle of a CSI PersistentVolume; empty for any other. */
  public static Optional<String> volumeHandle(PersistentVolume volume) {
    return Optional.ofNullable(volume.getSpec())
        .map(spec -> spec.getCsi())
        .map(csi -> csi.getVolumeHandle());
  }

  /**
   * @param volumes the PersistentVolumes whose {@code spec.csi.volumeHandle} is the content's
   *     source volume handle
   */
  public static Outcome decide(VolumeSnapshotContent content, List<PersistentVolume> volumes) {
    String driver = content.getSpec() == null ? null : content.getSpec().getDriver();
    Map<String, String> labels = content.getMetadata().getLabels();
    if (BackendNames.backendOfDriver(driver).isEmpty()
        || (labels != null && labels.containsKey(MANAGED_BY))) {
      return Outcome.leave();
    }
    String name = content.getMetadata().getName();
    Optional<String> handle = volumeHandle(content);
    if (handle.isEmpty()) {
      return preProvisioned(content, name);
    }
    List<PersistentVolume> sources =
        volumes.stream()
            .filter(v -> v.getSpec() != null && v.getSpec().getCsi() != null)
            .filter(v -> driver.equals(v.getSpec().getCsi().getDriver()))
            .filter(v -> handle.get().equals(v.getSpec().getCsi().getVolumeHandle()))
            .toList();
    if (sources.isEmpty()) {
      return new Outcome(
          Action.WAIT,
          null,
          "SourceVolumeUnknown",
          String.format(
              "no PersistentVolume of driver %s with volumeHandle %s is known yet, so the node"
                  + " whose csi-snapshotter must serve this content is unknown; the operator"
                  + " labels it when that volume shows up. Should the volume be gone, label it"
                  + " yourself: kubectl label volumesnapshotcontent %s %s=<node holding the"
                  + " volume>",
              driver, handle.get(), name, MANAGED_BY));
    }
    List<String> nodes =
        sources.stream().flatMap(v -> VolumeNodes.of(v).stream()).distinct().toList();
    if (nodes.size() == 1) {
      return new Outcome(Action.LABEL, nodes.get(0), null, null);
    }
    String volume = sources.get(0).getMetadata().getName();
    return new Outcome(
        Action.ASK_ADMIN,
        null,
        "SourceNodeUnknown",
        String.format(
            "PersistentVolume %s %s, so the node whose csi-snapshotter must serve this content is"
                + " not known for certain; label it yourself: kubectl label"
                + " volumesnapshotcontent %s %s=<node holding the volume>",
            volume,
            nodes.isEmpty()
                ? "has no node affinity on " + BackendNames.TOPOLOGY_KEY
                : "is pinned to several nodes " + nodes,
            name,
            MANAGED_BY));
  }

  /** The snapshot handle names no node: only who imported it knows where its data lies. */
  private static Outcome preProvisioned(VolumeSnapshotContent content, String name) {
    String snapshot =
        Objects.requireNonNullElse(
            content.getSpec().getSource() == null
                ? null
                : content.getSpec().getSource().getSnapshotHandle(),
            "<none>");
    return new Outcome(
        Action.ASK_ADMIN,
        null,
        "PreProvisionedContent",
        String.format(
            "a pre-provisioned content (snapshotHandle %s) names no node, and csi-snapshotter"
                + " --node-deployment serves only contents labelled with theirs; label it with"
                + " the node whose data dir holds snapshots/%s: kubectl label"
                + " volumesnapshotcontent %s %s=<node>",
            snapshot, snapshot, name, MANAGED_BY));
  }

  /**
   * The merge patch that sets only the label; the resourceVersion makes the API server refuse it
   * (409) should the object have changed since it was read, a label set meanwhile included.
   */
  public static String labelPatch(HasMetadata content, String node) {
    Map<String, Object> metadata = new java.util.LinkedHashMap<>();
    metadata.put("labels", Map.of(MANAGED_BY, node));
    if (content.getMetadata().getResourceVersion() != null) {
      metadata.put("resourceVersion", content.getMetadata().getResourceVersion());
    }
    return Serialization.asJson(Map.of("metadata", metadata));
  }
}
