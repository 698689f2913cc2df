package io.thinvol.driver.core;

import io.thinvol.driver.host.HostTools;
import io.thinvol.driver.store.Catalog;
import io.thinvol.driver.store.ContentSource;
import io.thinvol.driver.store.DataLayout;
import io.thinvol.driver.store.VolumeRecord;

/**
 * The volumes a delta may be applied onto (a copy of): made from a snapshot, and attached nowhere,
 * so that they still read as that snapshot unless something wrote to them after (which the check of
 * the whole result catches).
 */
final class DeltaBases {

  private DeltaBases() {}

  /** The base volume {@code id}, whose lock the caller holds. */
  static VolumeRecord require(
      Catalog catalog, HostTools host, DataLayout layout, String nodeId, String id) {
    VolumeRecord base =
        catalog
            .volume(id)
            .orElseThrow(
                () ->
                    CsiException.notFound(
                        "base volume %s does not exist on node %s: a delta is applied onto a"
                            + " copy of a volume this node holds",
                        id, nodeId));
    ContentSource made = base.contentSource();
    if (made == null || made.kind() != ContentSource.Kind.SNAPSHOT) {
      throw CsiException.failedPrecondition(
          "volume %s was not made from a snapshot, so no delta can be applied onto it; name a"
              + " volume made from an earlier snapshot of the same volume",
          id);
    }
    if (host.loops().find(layout.volumeImage(id)).isPresent()) {
      throw CsiException.failedPrecondition(
          "base volume %s is attached on node %s: something may be writing to it, so it may no"
              + " longer read as snapshot %s; unstage it first",
          id, nodeId, made.id());
    }
    return base;
  }
}
