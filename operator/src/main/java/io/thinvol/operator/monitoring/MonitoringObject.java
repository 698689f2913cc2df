package io.thinvol.operator.monitoring;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.util.Map;

/**
 * What a PodMonitor and a PrometheusRule share: namespaced, with a spec the operator writes as a
 * whole. fabric8 publishes no model of the Prometheus Operator's kinds (only a separate extension),
 * and the operator needs no more than this.
 */
public abstract class MonitoringObject implements HasMetadata, Namespaced {

  private String apiVersion = MonitoringApi.API_VERSION;
  private String kind;
  private ObjectMeta metadata;
  private Map<String, Object> spec;

  protected MonitoringObject(String kind) {
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

  public Map<String, Object> getSpec() {
    return spec;
  }

  public void setSpec(Map<String, Object> spec) {
    this.spec = spec;
  }
}
