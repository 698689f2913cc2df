package io.thinvol.driver.csi;

import csi.v1.CreateVolumeRequest;
import csi.v1.Topology;
import csi.v1.TopologyRequirement;
import csi.v1.VolumeCapability;
import csi.v1.VolumeContentSource;
import io.thinvol.driver.config.DriverConfig;
import io.thinvol.driver.core.CsiException;
import io.thinvol.driver.core.NodeManager;
import io.thinvol.driver.core.VolumeSpec;
import io.thinvol.driver.host.FsType;
import io.thinvol.driver.host.IoMode;
import io.thinvol.driver.store.AccessType;
import io.thinvol.driver.store.ContentSource;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** Validates a CreateVolumeRequest and turns it into a {@link VolumeSpec}. */
final class VolumeSpecs {

  static final String FSTYPE_PARAMETER = "csi.storage.k8s.io/fstype";

  private VolumeSpecs() {}

  static VolumeSpec from(CreateVolumeRequest request, String nodeId) {
    String name = Requests.name(request.getName(), "name");
    if (request.getVolumeCapabilitiesCount() == 0) {
      throw CsiException.invalidArgument("volume_capabilities is required");
    }
    Set<AccessType> accessTypes = new HashSet<>();
    Set<String> fsTypes = new HashSet<>();
    for (VolumeCapability capability : request.getVolumeCapabilitiesList()) {
      NodeManager.Usage usage = Requests.usage(capability, "volume_capabilities");
      accessTypes.add(usage.accessType());
      if (usage.fsType() != null && !usage.fsType().isEmpty()) {
        fsTypes.add(usage.fsType());
      }
    }
    if (accessTypes.size() > 1) {
      throw CsiException.invalidArgument(
          "volume_capabilities ask for both block and mount access; a volume is one or the other");
    }
    AccessType accessType = accessTypes.iterator().next();
    Map<String, String> parameters = parameters(request.getParametersMap());
    String fsType = accessType == AccessType.BLOCK ? null : fsType(fsTypes, parameters);
    requireReachable(request.getAccessibilityRequirements(), nodeId);
    return new VolumeSpec(
        name,
        request.getCapacityRange().getRequiredBytes(),
        request.getCapacityRange().getLimitBytes(),
        accessType,
        fsType,
        source(request),
        parameters,
        ioMode(parameters, request.getMutableParametersSpecMap()),
        null,
        null);
  }

  /** The mutable parameters (a VolumeAttributesClass) take precedence over the StorageClass's. */
  private static IoMode ioMode(Map<String, String> parameters, Map<String, String> mutable) {
    MutableParameters.requireOnlyMutable(mutable, "mutable_parameters");
    return MutableParameters.ioMode(mutable, "mutable_parameters")
        .or(() -> MutableParameters.ioMode(parameters, "parameter"))
        .orElse(MutableParameters.DEFAULT_IO_MODE);
  }

  private static Map<String, String> parameters(Map<String, String> given) {
    // The external-provisioner passes (and with --extra-create-metadata adds) prefixed keys.
    List<String> unknown = SidecarParameters.unknown(given, List.of(MutableParameters.IO_MODE));
    if (!unknown.isEmpty()) {
      throw CsiException.invalidArgument(
          "unknown StorageClass parameters %s; thinvol accepts only %s and %s",
          unknown, FSTYPE_PARAMETER, MutableParameters.IO_MODE);
    }
    return new TreeMap<>(given);
  }

  private static String fsType(Set<String> fromCapabilities, Map<String, String> parameters) {
    String fromParameter = parameters.getOrDefault(FSTYPE_PARAMETER, "");
    if (!fromParameter.isEmpty() && FsType.parse(fromParameter).isEmpty()) {
      throw CsiException.invalidArgument(
          "parameter %s=%s is not supported; use ext4 or xfs",
          FSTYPE_PARAMETER, Requests.shown(fromParameter));
    }
    Set<String> all = new HashSet<>(fromCapabilities);
    if (!fromParameter.isEmpty()) {
      all.add(fromParameter);
    }
    if (all.size() > 1) {
      throw CsiException.invalidArgument("conflicting filesystem types requested: %s", all);
    }
    return all.isEmpty() ? FsType.EXT4.id() : all.iterator().next();
  }

  private static ContentSource source(CreateVolumeRequest request) {
    if (!request.hasVolumeContentSource()) {
      return null;
    }
    VolumeContentSource source = request.getVolumeContentSource();
    return switch (source.getTypeCase()) {
      case SNAPSHOT ->
          new ContentSource(
              ContentSource.Kind.SNAPSHOT,
              Requests.snapshotId(
                  source.getSnapshot().getSnapshotId(),
                  "volume_content_source.snapshot.snapshot_id"));
      case VOLUME -> {
        String id = source.getVolume().getVolumeId();
        Requests.requirePresent(id, "volume_content_source.volume.volume_id");
        yield new ContentSource(ContentSource.Kind.VOLUME, Requests.volumeId(id));
      }
      case TYPE_NOT_SET ->
          throw CsiException.invalidArgument(
              "volume_content_source must name a snapshot or a volume");
    };
  }

  /**
   * Every volume lives on this node. Requisite topologies that exclude it cannot be met here; the
   * preferred list is only a wish.
   */
  private static void requireReachable(TopologyRequirement requirement, String nodeId) {
    if (requirement.getRequisiteCount() == 0) {
      return;
    }
    for (Topology topology : requirement.getRequisiteList()) {
      if (nodeId.equals(topology.getSegmentsMap().get(DriverConfig.TOPOLOGY_KEY))) {
        return;
      }
    }
    throw CsiException.resourceExhausted(
        "this driver provisions on node %s only (%s=%s), which the requisite topology excludes",
        nodeId, DriverConfig.TOPOLOGY_KEY, nodeId);
  }
}
