package io.thinvol.driver.csi;

import csi.v1.ControllerGetCapabilitiesResponse;
import csi.v1.ControllerServiceCapability.RPC.Type;
import java.util.ArrayList;
import java.util.List;

/** What this driver's Controller service offers. */
final class ControllerCapabilities {

  private static final List<Type> ALWAYS =
      List.of(
          Type.CREATE_DELETE_VOLUME,
          Type.CREATE_DELETE_SNAPSHOT,
          Type.CLONE_VOLUME,
          Type.LIST_VOLUMES,
          Type.LIST_VOLUMES_PUBLISHED_NODES,
          Type.LIST_SNAPSHOTS,
          Type.GET_SNAPSHOT,
          Type.GET_CAPACITY,
          Type.GET_VOLUME,
          Type.VOLUME_CONDITION,
          Type.SINGLE_NODE_MULTI_WRITER,
          Type.MODIFY_VOLUME);

  private ControllerCapabilities() {}

  /**
   * The capabilities; EXPAND_VOLUME only when the controller grows images ({@code nodeExpansion}
   * false), since with node expansion the node does it all.
   */
  static List<Type> of(boolean nodeExpansion) {
    List<Type> types = new ArrayList<>(ALWAYS);
    if (!nodeExpansion) {
      types.add(Type.EXPAND_VOLUME);
    }
    return types;
  }

  static ControllerGetCapabilitiesResponse response(boolean nodeExpansion) {
    ControllerGetCapabilitiesResponse.Builder response =
        ControllerGetCapabilitiesResponse.newBuilder();
    of(nodeExpansion)
        .forEach(type -> response.addCapabilitiesBuilder().getRpcBuilder().setType(type));
    return response.build();
  }
}
