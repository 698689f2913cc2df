package io.thinvol.operator.monitoring;

import io.fabric8.kubernetes.api.model.Namespaced;
import io.thinvol.operator.model.TypedObject;
import java.util.Map;

/**
 * What a PodMonitor and a PrometheusRule share: namespaced, with a spec the operator writes as a
 * whole. fabric8 publishes no model of the Prometheus Operator's kinds (only a separate extension),
 * and the operator needs no more than this.
 */
public abstract class MonitoringObject extends TypedObject implements Namespaced {

  private Map<String, Object> spec;

  protected MonitoringObject(String kind) {
    super(MonitoringApi.API_VERSION, kind);
  }

  public Map<String, Object> getSpec() {
    return spec;
  }

  public void setSpec(Map<String, Object> spec) {
    this.spec = spec;
  }
}
