package io.thinvol.driver.csi;

import csi.v1.ControllerGetVolumeRequest;
import csi.v1.ControllerGetVolumeResponse;
import csi.v1.GetCapacityRequest;
import csi.v1.GetCapacityResponse;
import csi.v1.ListVolumesRequest;
import csi.v1.ListVolumesResponse;
import csi.v1.Topology;
import csi.v1.ValidateVolumeCapabilitiesRequest;
import csi.v1.ValidateVolumeCapabilitiesResponse;
import csi.v1.VolumeCapability;
import io.thinvol.driver.config.DriverConfig;
import io.thinvol.driver.core.Capacity;
import io.thinvol.driver.core.CsiException;
import io.thinvol.driver.core.SizePolicy;
import io.thinvol.driver.core.VolumeHealth;
import io.thinvol.driver.core.VolumeManager;
import io.thinvol.driver.store.Ids;
import io.thinvol.driver.store.VolumeRecord;

/**
 * The Controller service's calls that only read this node's volumes: ValidateVolumeCapabilities,
 * ListVolumes, ControllerGetVolume and GetCapacity; request checks and answers.
 */
final class VolumeQueries {

  private final DriverConfig config;
  private final VolumeManager volumes;
  private final VolumeHealth health;

  VolumeQueries(DriverConfig config, VolumeManager volumes, VolumeHealth health) {
    this.config = config;
    this.volumes = volumes;
    this.health = health;
  }

  ValidateVolumeCapabilitiesResponse validate(ValidateVolumeCapabilitiesRequest request) {
    Requests.requirePresent(request.getVolumeId(), "volume_id");
    if (request.getVolumeCapabilitiesCount() == 0) {
      throw CsiException.invalidArgument("volume_capabilities is required");
    }
    request.getVolumeCapabilitiesList().forEach(Requests::requireWellFormed);
    VolumeRecord volume = volumes.requireVolume(Requests.volumeId(request.getVolumeId()));
    for (VolumeCapability capability : request.getVolumeCapabilitiesList()) {
      String refusal = CapabilityMatch.refusal(volume, capability);
      if (refusal != null) {
        return ValidateVolumeCapabilitiesResponse.newBuilder().setMessage(refusal).build();
      }
    }
    return ValidateVolumeCapabilitiesResponse.newBuilder()
        .setConfirmed(
            ValidateVolumeCapabilitiesResponse.Confirmed.newBuilder()
                .putAllVolumeContext(request.getVolumeContextMap())
                .addAllVolumeCapabilities(request.getVolumeCapabilitiesList())
                .putAllParameters(request.getParametersMap()))
        .build();
  }

  ListVolumesResponse list(ListVolumesRequest request) {
    Pages.Page<VolumeRecord> page =
        Pages.page(
            volumes.catalog().volumes(),
            VolumeRecord::id,
            Ids::isVolumeId,
            request.getMaxEntries(),
            request.getStartingToken());
    ListVolumesResponse.Builder response =
        ListVolumesResponse.newBuilder().setNextToken(page.nextToken());
    VolumeHealth.View view = health.view();
    for (VolumeRecord record : page.entries()) {
      response
          .addEntriesBuilder()
          .setVolume(Messages.volume(record, config.nodeId()))
          .setStatus(Messages.volumeStatus(view, record, config.nodeId()));
    }
    return response.build();
  }

  ControllerGetVolumeResponse get(ControllerGetVolumeRequest request) {
    VolumeRecord record = volumes.requireVolume(Requests.volumeId(request.getVolumeId()));
    ListVolumesResponse.VolumeStatus status =
        Messages.volumeStatus(health.view(), record, config.nodeId());
    return ControllerGetVolumeResponse.newBuilder()
        .setVolume(Messages.volume(record, config.nodeId()))
        .setStatus(
            ControllerGetVolumeResponse.VolumeStatus.newBuilder()
                .addAllPublishedNodeIds(status.getPublishedNodeIdsList())
                .setVolumeCondition(status.getVolumeCondition()))
        .build();
  }

  GetCapacityResponse capacity(GetCapacityRequest request) {
    boolean servable = reachable(request.getAccessibleTopology());
    for (VolumeCapability capability : request.getVolumeCapabilitiesList()) {
      try {
        Requests.usage(capability, "volume_capabilities");
      } catch (CsiException e) {
        servable = false; // capacity for volumes this driver cannot create is 0
      }
    }
    Capacity capacity = servable ? volumes.capacity() : new Capacity(0, 0);
    return GetCapacityResponse.newBuilder()
        .setAvailableCapacity(capacity.availableBytes())
        .setMaximumVolumeSize(com.google.protobuf.Int64Value.of(capacity.maximumVolumeBytes()))
        .setMinimumVolumeSize(com.google.protobuf.Int64Value.of(SizePolicy.MIB))
        .build();
  }

  private boolean reachable(Topology topology) {
    return topology.getSegmentsCount() == 0
        || config.nodeId().equals(topology.getSegmentsMap().get(DriverConfig.TOPOLOGY_KEY));
  }
}
