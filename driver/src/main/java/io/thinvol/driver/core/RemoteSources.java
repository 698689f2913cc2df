package io.thinvol.driver.core;

import io.thinvol.driver.host.DeltaSpool;
import io.thinvol.driver.store.ContentSource;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/** The volumes and snapshots of other nodes, which a volume of this node may be created from. */
public interface RemoteSources {

  /**
   * In {@link #open}'s parameters, instead of the claim: the VolumeReplication a replica is copied
   * for (its namespace and name).
   */
  String REPLICATION_NAMESPACE = "replication.thinvol.io/namespace";

  String REPLICATION_NAME = "replication.thinvol.io/name";

  /**
   * Starts a copy of {@code source}, which this node does not hold, from the node that does.
   * NOT_FOUND when no node holds it; UNAVAILABLE, naming the node, when the one that may cannot be
   * reached.
   *
   * @param baseSnapshotId for a delta of snapshot {@code source}: the earlier snapshot of the same
   *     volume that the image written to is a copy of; null for a whole copy
   * @param parameters the CreateVolume's parameters (the claim the external-provisioner names)
   */
  RemoteCopy open(
      ContentSource source, String baseSnapshotId, Map<String, String> parameters, Duration budget);

  /**
   * The base a delta is applied onto: its image (locked, attached nowhere), and whether the new
   * image is a full copy of it (a data dir without reflinks) rather than a reflink, which shares
   * its blocks on disk.
   */
  record DeltaBase(Path image, boolean copiedInFull) {}

  /** A copy under way; closing it stops it. */
  interface RemoteCopy extends AutoCloseable {
    SourceImage description();

    /** The node the copy comes from. */
    String node();

    /**
     * Writes the source's bytes into the new sparse file {@code image} (holes stay holes) and
     * checks them against the sender's digest; for a delta, {@code image} holds a copy of the
     * {@code base} and the changes are applied onto it, then the whole of it checked (null for a
     * whole copy). Any failure throws and the caller removes the file.
     */
    void writeTo(Path image, DeltaBase base) throws IOException;

    /**
     * For a delta applied in place onto {@code base}, a full copy's base: receives the changes into
     * {@code spool} (finished and synced) and writes nothing else, then checks that the base with
     * the changes laid over it reads as the snapshot, from the base's record of its blocks and the
     * changes alone. False when the record cannot tell (there is none, or its answer differs): then
     * only a copy of the base with the changes applied, read in full, may decide. {@code image} is
     * where the result will lie, its record made beside it ({@link #recordBlocks}).
     */
    boolean spoolTo(DeltaSpool spool, Path image, DeltaBase base) throws IOException;

    /**
     * Records beside the complete {@code image} (synced, its size final) the checksums of its
     * blocks, so that a later delta onto it needs not read it. Best effort: never throws.
     */
    void recordBlocks(Path image);

    /**
     * The bytes of data {@link #writeTo} received: what crossed the network (a delta's run of zeros
     * comes as its length alone and counts none).
     */
    long receivedBytes();

    @Override
    void close();
  }
}
