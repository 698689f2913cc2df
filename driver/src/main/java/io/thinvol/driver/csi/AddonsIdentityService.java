package io.thinvol.driver.csi;

import com.google.protobuf.BoolValue;
import csiaddons.identity.Capability;
import csiaddons.identity.GetCapabilitiesRequest;
import csiaddons.identity.GetCapabilitiesResponse;
import csiaddons.identity.GetIdentityRequest;
import csiaddons.identity.GetIdentityResponse;
import csiaddons.identity.IdentityGrpc;
import csiaddons.identity.ProbeRequest;
import csiaddons.identity.ProbeResponse;
import io.grpc.stub.StreamObserver;
import io.thinvol.driver.config.DriverConfig;

/**
 * CSI-Addons identity: one process serves both sides, so it offers the controller and node
 * services, both offline (ControllerReclaimSpace) and online (NodeReclaimSpace) reclaim, and volume
 * replication (the replication.Controller service: the roles of replicated volumes). Ready whenever
 * it answers, as the CSI identity ({@link IdentityService}).
 */
public final class AddonsIdentityService extends IdentityGrpc.IdentityImplBase {

  private static final GetCapabilitiesResponse CAPABILITIES =
      GetCapabilitiesResponse.newBuilder()
          .addCapabilities(service(Capability.Service.Type.CONTROLLER_SERVICE))
          .addCapabilities(service(Capability.Service.Type.NODE_SERVICE))
          .addCapabilities(reclaim(Capability.ReclaimSpace.Type.OFFLINE))
          .addCapabilities(reclaim(Capability.ReclaimSpace.Type.ONLINE))
          .addCapabilities(
              Capability.newBuilder()
                  .setVolumeReplication(
                      Capability.VolumeReplication.newBuilder()
                          .setType(Capability.VolumeReplication.Type.VOLUME_REPLICATION)))
          .build();
  private static final ProbeResponse READY =
      ProbeResponse.newBuilder().setReady(BoolValue.of(true)).build();

  private final GetIdentityResponse identity;

  public AddonsIdentityService(DriverConfig config) {
    this.identity =
        GetIdentityResponse.newBuilder()
            .setName(config.driverName())
            .setVendorVersion(config.version())
            .build();
  }

  @Override
  public void getIdentity(
      GetIdentityRequest request, StreamObserver<GetIdentityResponse> observer) {
    Rpc.constant("GetIdentity", observer, identity);
  }

  @Override
  public void getCapabilities(
      GetCapabilitiesRequest request, StreamObserver<GetCapabilitiesResponse> observer) {
    Rpc.constant("GetCapabilities", observer, CAPABILITIES);
  }

  @Override
  public void probe(ProbeRequest request, StreamObserver<ProbeResponse> observer) {
    Rpc.constant("Probe", observer, READY);
  }

  private static Capability service(Capability.Service.Type type) {
    return Capability.newBuilder()
        .setService(Capability.Service.newBuilder().setType(type))
        .build();
  }

  private static Capability reclaim(Capability.ReclaimSpace.Type type) {
    return Capability.newBuilder()
        .setReclaimSpace(Capability.ReclaimSpace.newBuilder().setType(type))
        .build();
  }
}
