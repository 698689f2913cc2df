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

/** CSI Identity: who the plugin is, what it offers, and that it serves. */
public final class IdentityService extends IdentityGrpc.IdentityImplBase {

  private static final GetPluginCapabilitiesResponse CAPABILITIES =
      GetPluginCapabilitiesResponse.newBuilder()
          .addCapabilities(service(PluginCapability.Service.Type.CONTROLLER_SERVICE))
          .addCapabilities(service(PluginCapability.Service.Type.GROUP_CONTROLLER_SERVICE))
          .addCapabilities(service(PluginCapability.Service.Type.VOLUME_ACCESSIBILITY_CONSTRAINTS))
          .addCapabilities(service(PluginCapability.Service.Type.SNAPSHOT_METADATA_SERVICE))
          .addCapabilities(
              PluginCapability.newBuilder()
                  .setVolumeExpansion(
                      PluginCapability.VolumeExpansion.newBuilder()
                          .setType(PluginCapability.VolumeExpansion.Type.ONLINE)))
          .build();

  /**
   * Ready whenever it answers: the plugin finished starting before it opened its socket. Data-dir
   * trouble is not Probe's business: the livenessprobe sidecar turns ready=false into a failed
   * liveness check, and a restart heals no disk (it only unregisters the plugin for every volume of
   * the node). The data dir's state is readiness ({@code /readyz}), volume conditions and a Pod
   * condition instead.
   */
  private static final ProbeResponse READY =
      ProbeResponse.newBuilder().setReady(BoolValue.of(true)).build();

  private final GetPluginInfoResponse info;

  public IdentityService(DriverConfig config) {
    this.info =
        GetPluginInfoResponse.newBuilder()
            .setName(config.driverName())
            .setVendorVersion(config.version())
            .build();
  }

  @Override
  public void getPluginInfo(
      GetPluginInfoRequest request, StreamObserver<GetPluginInfoResponse> observer) {
    Rpc.constant("GetPluginInfo", observer, info);
  }

  @Override
  public void getPluginCapabilities(
      GetPluginCapabilitiesRequest request,
      StreamObserver<GetPluginCapabilitiesResponse> observer) {
    Rpc.constant("GetPluginCapabilities", observer, CAPABILITIES);
  }

  @Override
  public void probe(ProbeRequest request, StreamObserver<ProbeResponse> observer) {
    Rpc.constant("Probe", observer, READY);
  }

  private static PluginCapability service(PluginCapability.Service.Type type) {
    return PluginCapability.newBuilder()
        .setService(PluginCapability.Service.newBuilder().setType(type))
        .build();
  }
}
