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
 * The snapshot API's VolumeSnapshotClass (cluster-scoped). fabric8 publishes no model of it for
 * this client version, and the operator needs only these fields.
 */
@Group("snapshot.storage.k8s.io")
@Version("v1")
@Kind("VolumeSnapshotClass")
@Plural("volumesnapshotclasses")
@JsonInclude(JsonInclude.Include.NON_NULL)
// Plain bean deserialisation: the interface routes to fabric8's polymorphic one, which lands here.
@JsonDeserialize(using = JsonDeserializer.None.class)
public class VolumeSnapshotClass implements HasMetadata {

  private String apiVersion = "snapshot.storage.k8s.io/v1";
  private String kind = "VolumeSnapshotClass";
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

  /** {@code Delete} or {@code Retain}: what happens to the snapshot when its object goes. */
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
