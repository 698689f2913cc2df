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
 * CSI-Addons identity: one process serves both sides, so it offers the controller and node services
 * and both offline (ControllerReclaimSpace) and online (NodeReclaimSpace) reclaim.
 */
public final class AddonsIdentityService extends IdentityGrpc.IdentityImplBase {

  private final DriverConfig config;

  public AddonsIdentityService(DriverConfig config) {
    this.config = config;
  }

  @Override
  public void getIdentity(
      GetIdentityRequest request, StreamObserver<GetIdentityResponse> observer) {
    Rpc.unary(
        "GetIdentity",
        null,
        observer,
        () ->
            GetIdentityResponse.newBuilder()
                .setName(config.driverName())
                .setVendorVersion(config.version())
                .build());
  }

  @Override
  public void getCapabilities(
      GetCapabilitiesRequest request, StreamObserver<GetCapabilitiesResponse> observer) {
    Rpc.unary(
        "GetCapabilities",
        null,
        observer,
        () ->
            GetCapabilitiesResponse.newBuilder()
                .addCapabilities(service(Capability.Service.Type.CONTROLLER_SERVICE))
                .addCapabilities(service(Capability.Service.Type.NODE_SERVICE))
                .addCapabilities(reclaim(Capability.ReclaimSpace.Type.OFFLINE))
                .addCapabilities(reclaim(Capability.ReclaimSpace.Type.ONLINE))
                .build());
  }

  @Override
  public void probe(ProbeRequest request, StreamObserver<ProbeResponse> observer) {
    Rpc.unary(
        "Probe",
        null,
        observer,
        () -> ProbeResponse.newBuilder().setReady(BoolValue.of(true)).build());
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
