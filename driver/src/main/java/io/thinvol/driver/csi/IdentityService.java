package io.thinvol.driver.csi;

import com.google.protobuf.BoolValue;
import csi.v1.GetPluginCapabilitiesRequest;
import csi.v1.GetPluginCapabilitiesResponse;
import csi.v1.GetPluginInfoRequest;
import csi.v1.GetPluginInfoResponse;
import csi.v1.IdentityGrpc;
import csi.v1.PluginCapability;
import csi.v1.ProbeRequest;
import csi.v1.ProbeResponse;
import io.grpc.stub.StreamObserver;
import io.thinvol.driver.config.DriverConfig;

/** CSI Identity: who the plugin is, what it offers, and whether its data dir is usable. */
public final class IdentityService extends IdentityGrpc.IdentityImplBase {

  private final DriverConfig config;

  public IdentityService(DriverConfig config) {
    this.config = config;
  }

  @Override
  public void getPluginInfo(
      GetPluginInfoRequest request, StreamObserver<GetPluginInfoResponse> observer) {
    Rpc.unary(
        "GetPluginInfo",
        null,
        observer,
        () ->
            GetPluginInfoResponse.newBuilder()
                .setName(config.driverName())
                .setVendorVersion(config.version())
                .build());
  }

  @Override
  public void getPluginCapabilities(
      GetPluginCapabilitiesRequest request,
      StreamObserver<GetPluginCapabilitiesResponse> observer) {
    Rpc.unary(
        "GetPluginCapabilities",
        null,
        observer,
        () ->
            GetPluginCapabilitiesResponse.newBuilder()
                .addCapabilities(service(PluginCapability.Service.Type.CONTROLLER_SERVICE))
                .addCapabilities(service(PluginCapability.Service.Type.GROUP_CONTROLLER_SERVICE))
                .addCapabilities(
                    service(PluginCapability.Service.Type.VOLUME_ACCESSIBILITY_CONSTRAINTS))
                .addCapabilities(service(PluginCapability.Service.Type.SNAPSHOT_METADATA_SERVICE))
                .addCapabilities(
                    PluginCapability.newBuilder()
                        .setVolumeExpansion(
                            PluginCapability.VolumeExpansion.newBuilder()
                                .setType(PluginCapability.VolumeExpansion.Type.ONLINE)))
                .build());
  }

  private static PluginCapability service(PluginCapability.Service.Type type) {
    return PluginCapability.newBuilder()
        .setService(PluginCapability.Service.newBuilder().setType(type))
        .build();
  }

  /** Ready while the data dir is a writable directory (a disk mounted late makes it so). */
  @Override
  public void probe(ProbeRequest request, StreamObserver<ProbeResponse> observer) {
    Rpc.unary(
        "Probe",
        null,
        observer,
        () -> ProbeResponse.newBuilder().setReady(BoolValue.of(config.dataDirUsable())).build());
  }
}
