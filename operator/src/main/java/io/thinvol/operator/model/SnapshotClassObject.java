package io.thinvol.operator.model;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.util.Map;

/**
 * What a VolumeSnapshotClass and a VolumeGroupSnapshotClass share (cluster-scoped, no spec): the
 * driver that serves them and what happens to the copies when their object goes.
 */
public abstract class SnapshotClassObject implements HasMetadata {

  private String apiVersion;
  private String kind;
  private ObjectMeta metadata;
  private String driver;
  private String deletionPolicy;
  private Map<String, String> parameters;

  protected SnapshotClassObject(String apiVersion, String kind) {
    this.apiVersion = apiVersion;
    this.kind = kind;
  }

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

  /** {@code Delete} or {@code Retain}: what happens to the copies when their object goes. */
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
