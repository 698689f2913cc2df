package io.thinvol.addons.call;

import com.google.common.util.concurrent.Futures;
import com.google.common.util.concurrent.ListenableFuture;
import com.google.common.util.concurrent.MoreExecutors;
import csiaddons.replication.ControllerGrpc;
import csiaddons.replication.DemoteVolumeRequest;
import csiaddons.replication.DisableVolumeReplicationRequest;
import csiaddons.replication.EnableVolumeReplicationRequest;
import csiaddons.replication.PromoteVolumeRequest;
import csiaddons.replication.ResyncVolumeRequest;
import csiaddons.replication.ResyncVolumeResponse;
import io.thinvol.addons.call.MoveCopier.Role;

/** CSI-Addons replication.Controller requests, one per role change. */
final class ReplicationRoleCalls {

  private ReplicationRoleCalls() {}

  /** The call for {@code change}; answers ResyncVolume's ready, true for the others. */
  static ListenableFuture<Boolean> of(
      ControllerGrpc.ControllerFutureStub stub,
      Role change,
      String volumeId,
      String replicationId,
      boolean force) {
    return switch (change) {
      case ENABLE ->
          done(
              stub.enableVolumeReplication(
                  EnableVolumeReplicationRequest.newBuilder()
                      .setVolumeId(volumeId)
                      .setReplicationId(replicationId)
                      .build()));
      case DISABLE ->
          done(
              stub.disableVolumeReplication(
                  DisableVolumeReplicationRequest.newBuilder()
                      .setVolumeId(volumeId)
                      .setReplicationId(replicationId)
                      .build()));
      case PROMOTE ->
          done(
              stub.promoteVolume(
                  PromoteVolumeRequest.newBuilder()
                      .setVolumeId(volumeId)
                      .setReplicationId(replicationId)
                      .setForce(force)
                      .build()));
      case DEMOTE ->
          done(
              stub.demoteVolume(
                  DemoteVolumeRequest.newBuilder()
                      .setVolumeId(volumeId)
                      .setReplicationId(replicationId)
                      .setForce(force)
                      .build()));
      case RESYNC ->
          Futures.transform(
              stub.resyncVolume(
                  ResyncVolumeRequest.newBuilder()
                      .setVolumeId(volumeId)
                      .setReplicationId(replicationId)
                      .setForce(force)
                      .build()),
              ResyncVolumeResponse::getReady,
              MoreExecutors.directExecutor());
    };
  }

  private static <T> ListenableFuture<Boolean> done(ListenableFuture<T> call) {
    return Futures.transform(call, answer -> true, MoreExecutors.directExecutor());
  }
}
