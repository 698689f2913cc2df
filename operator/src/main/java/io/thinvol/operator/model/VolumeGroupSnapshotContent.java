package io.thinvol.operator.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;
import java.util.List;
import java.util.Map;

/**
 * The group snapshot API's VolumeGroupSnapshotContent (cluster-scoped), read only, as {@link
 * VolumeSnapshotContent}: the operator labels it with a merge patch and reads its driver, source,
 * class and whether it was made; it never writes the object back, so unmodelled fields are kept.
 * Not registered with fabric8's deserializer, for the same reason as {@link VolumeSnapshotContent}.
 */
@Group(GroupSnapshotModel.GROUP)
@Version(GroupSnapshotModel.VERSION)
@Kind("VolumeGroupSnapshotContent")
@Plural("volumegroupsnapshotcontents")
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonDeserialize(using = JsonDeserializer.None.class)
public class VolumeGroupSnapshotContent
    extends SnapshotContentObject<VolumeGroupSnapshotContent.Spec> {

  private Status status;

  public VolumeGroupSnapshotContent() {
    super(GroupSnapshotModel.API_VERSION, "VolumeGroupSnapshotContent");
  }

  public Status getStatus() {
    return status;
  }

  public void setStatus(Status status) {
    this.status = status;
  }

  /** The driver, the class its snapshotter reads, and the volumes it copies. */
  public static class Spec extends ContentSpec<Source> {
    private String volumeGroupSnapshotClassName;

    public String getVolumeGroupSnapshotClassName() {
      return volumeGroupSnapshotClassName;
    }

    public void setVolumeGroupSnapshotClassName(String volumeGroupSnapshotClassName) {
      this.volumeGroupSnapshotClassName = volumeGroupSnapshotClassName;
    }
  }

  /** One of: the volumes a dynamic group copies, or the handles of a pre-provisioned one. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public static class Source {
    private List<String> volumeHandles;
    private Map<String, Object> groupSnapshotHandles;

    public List<String> getVolumeHandles() {
      return volumeHandles;
    }

    public void setVolumeHandles(List<String> volumeHandles) {
      this.volumeHandles = volumeHandles;
    }

    public Map<String, Object> getGroupSnapshotHandles() {
      return groupSnapshotHandles;
    }

    public void setGroupSnapshotHandles(Map<String, Object> groupSnapshotHandles) {
      this.groupSnapshotHandles = groupSnapshotHandles;
    }
  }

  /** Whether the group was made (its handle), and the last error making it. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public static class Status {
    private String volumeGroupSnapshotHandle;
    private Map<String, Object> error;

    public String getVolumeGroupSnapshotHandle() {
      return volumeGroupSnapshotHandle;
    }

    public void setVolumeGroupSnapshotHandle(String volumeGroupSnapshotHandle) {
      this.volumeGroupSnapshotHandle = volumeGroupSnapshotHandle;
    }

    public Map<String, Object> getError() {
      return error;
    }

    public void setError(Map<String, Object> error) {
      this.error = error;
    }
  }
}
