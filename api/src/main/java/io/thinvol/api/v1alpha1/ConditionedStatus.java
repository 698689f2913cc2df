package io.thinvol.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.ArrayList;
import java.util.List;

/**
 * What every status of this API has: its standard conditions and the generation of the spec they
 * describe. Each kind says which conditions it sets by describing {@link #getConditions()} again.
 */
public abstract class ConditionedStatus {

  private List<Condition> conditions = new ArrayList<>();

  @JsonPropertyDescription("The generation of the spec this status describes.")
  private Long observedGeneration;

  public List<Condition> getConditions() {
    return conditions;
  }

  public void setConditions(List<Condition> conditions) {
    this.conditions = conditions;
  }

  public Long getObservedGeneration() {
    return observedGeneration;
  }

  public void setObservedGeneration(Long observedGeneration) {
    this.observedGeneration = observedGeneration;
  }
}
