package io.thinvol.driver.client;

import csi.v1.VolumeCapability;

/** Volume capabilities as Kubernetes sends them for ReadWriteOnce volumes. */
public final class Capabilities {

  private Capabilities() {}

  public static VolumeCapability mount(String fsType, String... mountFlags) {
    return VolumeCapability.newBuilder()
        .setMount(
            VolumeCapability.MountVolume.newBuilder()
                .setFsType(fsType)
                .addAllMountFlags(java.util.List.of(mountFlags)))
        .setAccessMode(singleNodeWriter())
        .build();
  }

  public static VolumeCapability block() {
    return VolumeCapability.newBuilder()
        .setBlock(VolumeCapability.BlockVolume.getDefaultInstance())
        .setAccessMode(singleNodeWriter())
        .build();
  }

  private static VolumeCapability.AccessMode singleNodeWriter() {
    return VolumeCapability.AccessMode.newBuilder()
        .setMode(VolumeCapability.AccessMode.Mode.SINGLE_NODE_WRITER)
        .build();
  }
}
