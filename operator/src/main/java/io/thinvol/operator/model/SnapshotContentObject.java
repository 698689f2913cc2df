package io.thinvol.operator.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * What the two snapshot content kinds (a volume's and a group's) share as the operator reads them:
 * a spec that names the driver making the copy and what it copies.
 *
 * @param <S> the kind's spec
 */
public abstract class SnapshotContentObject<S extends SnapshotContentObject.ContentSpec<?>>
    extends TypedObject {

  private S spec;

  protected SnapshotContentObject(String apiVersion, String kind) {
    super(apiVersion, kind);
  }

  public S getSpec() {
    return spec;
  }

  public void setSpec(S spec) {
    this.spec = spec;
  }

  /**
   * The driver that makes the copy, and what it is a copy of.
   *
   * @param <T> the kind's source
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public abstract static class ContentSpec<T> {
    private String driver;
    private T source;

    public String getDriver() {
      return driver;
    }

    public void setDriver(String driver) {
      this.driver = driver;
    }

    public T getSource() {
      return source;
    }

    public void setSource(T source) {
      this.source = source;
    }
  }
}
