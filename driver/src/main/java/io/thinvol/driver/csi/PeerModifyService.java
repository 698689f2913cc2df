package io.thinvol.driver.csi;

import csi.v1.ControllerGrpc;
import io.grpc.BindableService;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ServerCalls;
import io.thinvol.driver.core.VolumeManager;

/**
 * ControllerModifyVolume, alone of the Controller service, on the CSI-Addons TLS port: what a peer
 * driver forwards for a volume of this node. It only applies the change here; it never forwards, so
 * a forwarded call cannot travel on (the loop guard). Who may call it is the port's interceptor's
 * business.
 */
public final class PeerModifyService implements BindableService {

  private final VolumeModification modification;

  public PeerModifyService(VolumeManager volumes) {
    this.modification = new VolumeModification(volumes, null);
  }

  @Override
  public ServerServiceDefinition bindService() {
    return ServerServiceDefinition.builder(ControllerGrpc.SERVICE_NAME)
        .addMethod(
            ControllerGrpc.getControllerModifyVolumeMethod(),
            ServerCalls.asyncUnaryCall(
                (request, observer) ->
                    Rpc.unary(
                        "ControllerModifyVolume(forwarded)",
                        request.getVolumeId(),
                        observer,
                        () -> modification.modify(request))))
        .build();
  }
}
