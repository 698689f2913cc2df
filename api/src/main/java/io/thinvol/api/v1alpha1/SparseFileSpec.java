package io.thinvol.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/** The sparse-file backend: volumes are image files under a directory of each node. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class SparseFileSpec {

  @JsonPropertyDescription(
      "Directory on each node that holds the volume images. Default: /var/lib/thinvol/<name>."
          + " Cannot be changed: the volumes already there would be lost to the driver.")
  @Pattern("^/.*[^/]$")
  // Room below PATH_MAX (4096) for the volume images' and mounts' names under it.
  @Size(max = 1024)
  @ValidationRule(value = "self == oldSelf", message = "dataDir cannot be changed")
  private String dataDir;

  @JsonPropertyDescription(
      "Filesystem of new mount volumes unless the StorageClass says otherwise.")
  @Default("ext4")
  private Filesystem filesystem;

  @JsonPropertyDescription(
      "How many bytes of volumes one byte of disk may back; 1.0 promises no more than the disk"
          + " holds, 2.0 twice as much (thin provisioning).")
  @Default("1.0")
  @Min(1.0)
  private Double overprovisionRatio;

  @JsonPropertyDescription(
      "The data dir is meant to be a filesystem of its own mounted there on each node (a data"
          + " disk). While none is mounted, the driver on that node creates nothing there (the"
          + " images would fill the node's root filesystem and later hide under the disk), is not"
          + " ready, says why in its Pod's condition thinvol.io/DataDirUnusable and in"
          + " status.nodeProblems, and picks the disk up as soon as it is mounted, without a"
          + " restart. A bind mount of a directory does not count: mount the disk's filesystem.")
  @Default("false")
  private Boolean dedicatedMount;

  /** Filesystems the driver creates. */
  public enum Filesystem {
    @JsonProperty("ext4")
    EXT4,
    @JsonProperty("xfs")
    XFS
  }

  public String getDataDir() {
    return dataDir;
  }

  public void setDataDir(String dataDir) {
    this.dataDir = dataDir;
  }

  public Filesystem getFilesystem() {
    return filesystem;
  }

  public void setFilesystem(Filesystem filesystem) {
    this.filesystem = filesystem;
  }

  public Double getOverprovisionRatio() {
    return overprovisionRatio;
  }

  public void setOverprovisionRatio(Double overprovisionRatio) {
    this.overprovisionRatio = overprovisionRatio;
  }

  public Boolean getDedicatedMount() {
    return dedicatedMount;
  }

  public void setDedicatedMount(Boolean dedicatedMount) {
    this.dedicatedMount = dedicatedMount;
  }
}
