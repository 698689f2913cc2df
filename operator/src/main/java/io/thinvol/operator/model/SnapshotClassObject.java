package io.thinvol.operator.model;

import java.util.Map;

/**
 * What a VolumeSnapshotClass and a VolumeGroupSnapshotClass share (cluster-scoped, no spec): the
 * driver that serves them and what happens to the copies when their object goes.
 */
public abstract class SnapshotClassObject extends TypedObject {

  private String driver;
  private String deletionPolicy;
  private Map<String, String> parameters;

  protected SnapshotClassObject(String apiVersion, String kind) {
    super(apiVersion, kind);
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
