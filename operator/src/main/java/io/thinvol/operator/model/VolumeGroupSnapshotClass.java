package io.thinvol.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;
import java.util.Map;

/**
 * The group snapshot API's VolumeGroupSnapshotClass (cluster-scoped). fabric8 publishes no model of
 * it, and the operator needs only these fields.
 */
@Group(GroupSnapshotModel.GROUP)
@Version(GroupSnapshotModel.VERSION)
@Kind("VolumeGroupSnapshotClass")
@Plural("volumegroupsnapshotclasses")
@JsonInclude(JsonInclude.Include.NON_NULL)
// Plain bean deserialisation: the interface routes to fabric8's polymorphic one, which lands here.
@JsonDeserialize(using = JsonDeserializer.None.class)
public class VolumeGroupSnapshotClass implements HasMetadata {

  private String apiVersion = GroupSnapshotModel.API_VERSION;
  private String kind = "VolumeGroupSnapshotClass";
  private ObjectMeta metadata;
  private String driver;
  private String deletionPolicy;
  private Map<String, String> parameters;

  @Override
  public String getApiVersion() {
    return apiVersion;
  }

  @Override
  public void setApiVersion(String apiVersion) {
    this.apiVersion = apiVersion;
  }

  @Override
  public String getKind() {
    return kind;
  }

  public void setKind(String kind) {
    this.kind = kind;
  }

  @Override
  public ObjectMeta getMetadata() {
    return metadata;
  }

  @Override
  public void setMetadata(ObjectMeta metadata) {
    this.metadata = metadata;
  }

  public String getDriver() {
    return driver;
  }

  public void setDriver(String driver) {
    this.driver = driver;
  }

  /** {@code Delete} or {@code Retain}: what happens to the group snapshot when its object goes. */
  public String getDeletionPolicy() {
    return deletionPolicy;
  }

  public void setDeletionPolicy(String deletionPolicy) {
    this.deletionPolicy = deletionPolicy;
  }

  public Map<String, String> getParameters() {
    return parameters;
  }

  public void setParameters(Map<String, String> parameters) {
    this.parameters = parameters;
  }
}
