package io.thinvol.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.List;
import java.util.Map;

/** What a StorageBackend deploys and how. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class StorageBackendSpec {

  /**
   * StorageClasses per backend: classes differ by filesystem, reclaim policy, expansion and mount
   * options, so a handful covers every use; the bound keeps the uniqueness rule (quadratic) within
   * the API server's CEL cost limit.
   */
  public static final int MAX_STORAGE_CLASSES = 16;

  @JsonPropertyDescription("Volumes as sparse image files on each node's disk.")
  private SparseFileSpec sparseFile;

  @JsonPropertyDescription(
      "Only nodes with these labels run the driver and hold volumes. Default: every Linux node.")
  private Map<String, String> nodeSelector;

  @JsonPropertyDescription("Tolerations of the driver pods, to reach tainted storage nodes.")
  private List<Toleration> tolerations;

  @JsonPropertyDescription(
      "StorageClasses to create for this backend. Default: one StorageClass named after the"
          + " StorageBackend.")
  @Size(max = StorageBackendSpec.MAX_STORAGE_CLASSES)
  @ValidationRule(
      value = "self.all(c, self.exists_one(d, d.name == c.name))",
      message = "StorageClass names must be unique")
  @ValidationRule(
      value = "self.filter(c, has(c.default) && c.default).size() <= 1",
      message = "at most one StorageClass can be the default")
  private List<StorageClassSpec> storageClasses;

  @JsonPropertyDescription(
      "Create a VolumeSnapshotClass for this backend when the cluster has the snapshot CRDs.")
  @Default("true")
  private Boolean volumeSnapshotClass;

  @JsonPropertyDescription("Space reclamation for all volumes of this backend.")
  private ReclaimSpaceSpec reclaimSpace;

  @JsonPropertyDescription("Images to run instead of the defaults (for mirrors or fixes).")
  private ImagesSpec images;

  @JsonPropertyDescription(
      "Requests and limits of the node pods' sidecars instead of the defaults, per sidecar.")
  private SidecarResourcesSpec sidecarResources;

  @JsonPropertyDescription("Secrets for pulling the images, in the operator's namespace.")
  private List<LocalObjectReference> imagePullSecrets;

  @JsonPropertyDescription("The kubelet's root directory on the nodes.")
  @Default("/var/lib/kubelet")
  @Pattern("^/.*[^/]$")
  private String kubeletDir;

  @JsonPropertyDescription("The driver's log level.")
  @Default("INFO")
  private LogLevel logLevel;

  @JsonPropertyDescription(
      "Thresholds of this backend's alerts, where the operator creates them (clusters serving"
          + " monitoring.coreos.com/v1). Default: the values below.")
  @ValidationRule(value = MonitoringSpec.ORDER_RULE, message = MonitoringSpec.ORDER_MESSAGE)
  private MonitoringSpec monitoring;

  @JsonPropertyDescription(
      "How volumes move between nodes (VolumeMoves, evacuations): limits and deadlines.")
  private MovesSpec moves;

  /** Log levels of the driver. */
  public enum LogLevel {
    ERROR,
    WARN,
    INFO,
    DEBUG,
    TRACE
  }

  public SparseFileSpec getSparseFile() {
    return sparseFile;
  }

  public void setSparseFile(SparseFileSpec sparseFile) {
    this.sparseFile = sparseFile;
  }

  public Map<String, String> getNodeSelector() {
    return nodeSelector;
  }

  public void setNodeSelector(Map<String, String> nodeSelector) {
    this.nodeSelector = nodeSelector;
  }

  public List<Toleration> getTolerations() {
    return tolerations;
  }

  public void setTolerations(List<Toleration> tolerations) {
    this.tolerations = tolerations;
  }

  public List<StorageClassSpec> getStorageClasses() {
    return storageClasses;
  }

  public void setStorageClasses(List<StorageClassSpec> storageClasses) {
    this.storageClasses = storageClasses;
  }

  public Boolean getVolumeSnapshotClass() {
    return volumeSnapshotClass;
  }

  public void setVolumeSnapshotClass(Boolean volumeSnapshotClass) {
    this.volumeSnapshotClass = volumeSnapshotClass;
  }

  public ReclaimSpaceSpec getReclaimSpace() {
    return reclaimSpace;
  }

  public void setReclaimSpace(ReclaimSpaceSpec reclaimSpace) {
    this.reclaimSpace = reclaimSpace;
  }

  public ImagesSpec getImages() {
    return images;
  }

  public void setImages(ImagesSpec images) {
    this.images = images;
  }

  public SidecarResourcesSpec getSidecarResources() {
    return sidecarResources;
  }

  public void setSidecarResources(SidecarResourcesSpec sidecarResources) {
    this.sidecarResources = sidecarResources;
  }

  public List<LocalObjectReference> getImagePullSecrets() {
    return imagePullSecrets;
  }

  public void setImagePullSecrets(List<LocalObjectReference> imagePullSecrets) {
    this.imagePullSecrets = imagePullSecrets;
  }

  public String getKubeletDir() {
    return kubeletDir;
  }

  public void setKubeletDir(String kubeletDir) {
    this.kubeletDir = kubeletDir;
  }

  public LogLevel getLogLevel() {
    return logLevel;
  }

  public void setLogLevel(LogLevel logLevel) {
    this.logLevel = logLevel;
  }

  public MonitoringSpec getMonitoring() {
    return monitoring;
  }

  public void setMonitoring(MonitoringSpec monitoring) {
    this.monitoring = monitoring;
  }

  public MovesSpec getMoves() {
    return moves;
  }

  public void setMoves(MovesSpec moves) {
    this.moves = moves;
  }
}
