package io.thinvol.driver.csi;

import csi.v1.ControllerGrpc;
import csi.v1.GroupControllerGrpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.thinvol.driver.core.DataDirUsability;
import java.util.Set;

/**
 * Refuses the calls that put new images into the data dir while it cannot take them (a dedicated
 * mount missing, a read-only filesystem): UNAVAILABLE with the reason, which the provisioner
 * retries, so the volume is created once the data dir is back and never on the root filesystem in
 * its place. Everything else (stage, publish, stats, delete) goes on for the volumes that exist.
 */
public final class DataDirGate implements ServerInterceptor {

  private static final Set<String> WRITES_NEW_IMAGES =
      Set.of(
          ControllerGrpc.getCreateVolumeMethod().getFullMethodName(),
          ControllerGrpc.getCreateSnapshotMethod().getFullMethodName(),
          GroupControllerGrpc.getCreateVolumeGroupSnapshotMethod().getFullMethodName());

  private final DataDirUsability usability;

  public DataDirGate(DataDirUsability usability) {
    this.usability = usability;
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
    if (WRITES_NEW_IMAGES.contains(call.getMethodDescriptor().getFullMethodName())) {
      DataDirUsability.Problem problem = usability.problem();
      if (problem != null) {
        call.close(Status.UNAVAILABLE.withDescription(problem.message()), new Metadata());
        return new ServerCall.Listener<>() {};
      }
    }
    return next.startCall(call, headers);
  }
}
