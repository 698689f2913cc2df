package io.thinvol.operator.replicate;

import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.api.v1alpha1.VolumeReplication;

/**
 * The names of what a replication makes, derived from the VolumeReplication alone so that an
 * operator that restarts finds them again: the drivers' names of each sync's snapshot and replica,
 * {@code thinvol-repl-<uid>-<attempt>}, and its VolumeMoves {@code thinvol-repl-<id>-<kind>-<n>}.
 */
final class ReplicationNames {

  /** Label on the VolumeMoves a replication makes: the VolumeReplication's name. */
  static final String LABEL = StorageBackend.GROUP + "/volume-replication";

  private final VolumeReplication replication;

  ReplicationNames(VolumeReplication replication) {
    this.replication = replication;
  }

  String uid() {
    return replication.getMetadata().getUid();
  }

  String namespace() {
    return replication.getMetadata().getNamespace();
  }

  String name() {
    return replication.getMetadata().getName();
  }

  /** The claim replicated. */
  String claim() {
    return replication.getSpec().getDataSource().getName();
  }

  /** {@code <namespace>/<name>}. */
  String qualified() {
    return namespace() + "/" + name();
  }

  /** A sync's snapshot on the primary, and the replica made of it on the standby. */
  String sync(long attempt) {
    return "thinvol-repl-" + uid() + "-" + attempt;
  }

  /** A failover's or switchover's VolumeMove. */
  String move(String kind, long number) {
    return "thinvol-repl-" + uid().replace("-", "").substring(0, 8) + "-" + kind + "-" + number;
  }

  /** The keys of this replication's calls in flight. */
  String calls() {
    return uid() + "/";
  }
}
