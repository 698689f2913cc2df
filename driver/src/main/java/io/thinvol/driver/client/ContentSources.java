package io.thinvol.driver.client;

import csi.v1.VolumeContentSource;

/** What a new volume is made from, as the external-provisioner sends it for a clone or restore. */
public final class ContentSources {

  private ContentSources() {}

  public static VolumeContentSource volumeSource(String volumeId) {
    return VolumeContentSource.newBuilder()
        .setVolume(VolumeContentSource.VolumeSource.newBuilder().setVolumeId(volumeId))
        .build();
  }

  public static VolumeContentSource snapshotSource(String snapshotId) {
    return VolumeContentSource.newBuilder()
        .setSnapshot(VolumeContentSource.SnapshotSource.newBuilder().setSnapshotId(snapshotId))
        .build();
  }
}
