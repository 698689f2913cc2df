package io.thinvol.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;

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
public class VolumeSnapshotClass extends SnapshotClassObject {

  public VolumeSnapshotClass() {
    super("snapshot.storage.k8s.io/v1", "VolumeSnapshotClass");
  }
}
