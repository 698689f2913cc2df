package io.thinvol.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.TypedLocalObjectReference;

/** Which claim is replicated, by which class, and what its copy should be. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class VolumeReplicationSpec {

  @JsonPropertyDescription("The VolumeReplicationClass (interval, standby nodes).")
  @Required
  @ValidationRule(value = "self == oldSelf", message = "volumeReplicationClass is immutable")
  private String volumeReplicationClass;

  @JsonPropertyDescription(
      "primary: the claim's current copy is the writable one, replicated to the standby."
          + " secondary: it steps down, a planned switchover to the standby with nothing lost (done"
          + " once; status.state is then Secondary). resync: the standby's copy is replaced by a"
          + " whole new one.")
  @Required
  private ReplicationState replicationState;

  @JsonPropertyDescription("The PersistentVolumeClaim replicated, in this namespace.")
  @Required
  @ValidationRule(value = "self == oldSelf", message = "dataSource is immutable")
  @ValidationRule(
      value =
          "self.kind == 'PersistentVolumeClaim' && (!has(self.apiGroup) || self.apiGroup == '')",
      message = "thinvol replicates PersistentVolumeClaims (kind: PersistentVolumeClaim)")
  private TypedLocalObjectReference dataSource;

  @JsonPropertyDescription(
      "What happens to a failed primary's copy when its node returns: true resyncs it (it is"
          + " discarded and its node may become the standby); false keeps it, demoted and never"
          + " mounted, until replicationState: resync.")
  @Default("false")
  private Boolean autoResync;

  @JsonPropertyDescription("CSI-Addons' existing replication id; thinvol does not use it.")
  private String replicationHandle;

  public String getVolumeReplicationClass() {
    return volumeReplicationClass;
  }

  public void setVolumeReplicationClass(String volumeReplicationClass) {
    this.volumeReplicationClass = volumeReplicationClass;
  }

  public ReplicationState getReplicationState() {
    return replicationState;
  }

  public void setReplicationState(ReplicationState replicationState) {
    this.replicationState = replicationState;
  }

  public TypedLocalObjectReference getDataSource() {
    return dataSource;
  }

  public void setDataSource(TypedLocalObjectReference dataSource) {
    this.dataSource = dataSource;
  }

  public Boolean getAutoResync() {
    return autoResync;
  }

  public void setAutoResync(Boolean autoResync) {
    this.autoResync = autoResync;
  }

  public String getReplicationHandle() {
    return replicationHandle;
  }

  public void setReplicationHandle(String replicationHandle) {
    this.replicationHandle = replicationHandle;
  }
}
