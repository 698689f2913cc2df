package io.thinvol.operator.model;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;

/**
 * The type and metadata every kind the operator models by hand carries (kinds of other projects'
 * APIs, of which it reads or writes only a few fields).
 */
public abstract class TypedObject implements HasMetadata {

  private String apiVersion;
  private String kind;
  private ObjectMeta metadata;

  protected TypedObject(String apiVersion, String kind) {
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
}
