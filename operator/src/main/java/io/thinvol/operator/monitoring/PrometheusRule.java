package io.thinvol.operator.monitoring;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * The Prometheus Operator's PrometheusRule: alerting rules Prometheus evaluates, as the groups of a
 * rules file.
 */
@Group(MonitoringApi.GROUP)
@Version(MonitoringApi.VERSION)
@Kind("PrometheusRule")
@Plural("prometheusrules")
@JsonInclude(JsonInclude.Include.NON_NULL)
// Plain bean deserialisation: the interface routes to fabric8's polymorphic one, which lands here.
@JsonDeserialize(using = JsonDeserializer.None.class)
public class PrometheusRule extends MonitoringObject {

  public PrometheusRule() {
    super("PrometheusRule");
  }
}
