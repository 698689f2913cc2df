package io.thinvol.operator.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * The snapshot API's VolumeSnapshotContent (cluster-scoped), read only: the operator needs its
 * driver and source to label it, and writes nothing but a label with a merge patch, so the fields
 * it does not model are never lost. Unlike the snapshot classes it is not registered with fabric8's
 * deserializer (META-INF/services): a watch event's object is deserialized by its kind before it is
 * converted to the watch's type, so every client in the process (a generic one included) would
 * receive contents cut down to these fields.
 */
@Group("snapshot.storage.k8s.io")
@Version("v1")
@Kind("VolumeSnapshotContent")
@Plural("volumesnapshotcontents")
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
// Plain bean deserialisation: the interface routes to fabric8's polymorphic one, which lands here.
@JsonDeserialize(using = JsonDeserializer.None.class)
public class VolumeSnapshotContent extends SnapshotContentObject<VolumeSnapshotContent.Spec> {

  public VolumeSnapshotContent() {
    super("snapshot.storage.k8s.io/v1", "VolumeSnapshotContent");
  }

  /** The driver that makes the copy, and the volume or snapshot handle it is a copy of. */
  public static class Spec extends ContentSpec<Source> {}

  /**
   * One of: the volume a dynamic snapshot copies, or the driver's handle of a pre-provisioned one.
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public static class Source {
    private String volumeHandle;
    private String snapshotHandle;

    public String getVolumeHandle() {
      return volumeHandle;
    }

    public void setVolumeHandle(String volumeHandle) {
      this.volumeHandle = volumeHandle;
    }

    public String getSnapshotHandle() {
      return snapshotHandle;
    }

    public void setSnapshotHandle(String snapshotHandle) {
      this.snapshotHandle = snapshotHandle;
    }
  }
}
