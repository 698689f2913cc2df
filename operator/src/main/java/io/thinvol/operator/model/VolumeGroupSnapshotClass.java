package io.thinvol.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;

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
public class VolumeGroupSnapshotClass extends SnapshotClassObject {

  public VolumeGroupSnapshotClass() {
    super(GroupSnapshotModel.API_VERSION, "VolumeGroupSnapshotClass");
  }
}
