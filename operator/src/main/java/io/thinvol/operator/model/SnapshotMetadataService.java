package io.thinvol.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * The changed-block-tracking API's SnapshotMetadataService (cluster-scoped, named after the CSI
 * driver): where backup tools reach a driver's external-snapshot-metadata sidecar, the CA to trust
 * and the audience their token must carry. fabric8 publishes no model of it.
 */
@Group(SnapshotMetadataService.GROUP)
@Version(SnapshotMetadataService.VERSION)
@Kind("SnapshotMetadataService")
@Plural("snapshotmetadataservices")
@JsonInclude(JsonInclude.Include.NON_NULL)
// Plain bean deserialisation: the interface routes to fabric8's polymorphic one, which lands here.
@JsonDeserialize(using = JsonDeserializer.None.class)
public class SnapshotMetadataService extends TypedObject {

  public SnapshotMetadataService() {
    super(API_VERSION, "SnapshotMetadataService");
  }

  public static final String GROUP = "cbt.storage.k8s.io";
  // The version external-snapshot-metadata v1.x reads
  public static final String VERSION = "v1beta1";
  public static final String API_VERSION = GROUP + "/" + VERSION;

  private Spec spec;

  /**
   * @param address host:port of the sidecar's TLS gRPC service, without a scheme
   * @param audience what a client's token must be issued for (a TokenReview checks it)
   * @param caCert the PEM bundle that signs the sidecar's certificate, base64 (a {@code byte}
   *     field)
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Spec(String address, String audience, String caCert) {}

  public Spec getSpec() {
    return spec;
  }

  public void setSpec(Spec spec) {
    this.spec = spec;
  }
}
