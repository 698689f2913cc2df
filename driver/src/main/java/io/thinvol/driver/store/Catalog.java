package io.thinvol.driver.store;

import com.fasterxml.jackson.jr.ob.JSON;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The volumes and snapshots on this node: an in-memory index over the {@code meta.json} files,
 * which are the only state. Rebuilt from disk at start; every change is written to disk first.
 */
public final class Catalog {

  private static final Logger log = LoggerFactory.getLogger(Catalog.class);

  /**
   * Records as indented JSON, null members left out; members a newer driver added are ignored. A
   * file missing a member of primitive type (which every driver has written) is unreadable.
   */
  static final JSON RECORDS =
      JSON.std
          .with(JSON.Feature.PRETTY_PRINT_OUTPUT)
          .without(JSON.Feature.FAIL_ON_UNKNOWN_BEAN_PROPERTY, JSON.Feature.WRITE_NULL_PROPERTIES);

  private final DataLayout layout;
  private final ConcurrentMap<String, VolumeRecord> volumes = new ConcurrentHashMap<>();
  private final ConcurrentMap<String, String> volumeIdsByName = new ConcurrentHashMap<>();
  private final ConcurrentMap<String, SnapshotRecord> snapshots = new ConcurrentHashMap<>();
  private final ConcurrentMap<String, String> snapshotIdsByName = new ConcurrentHashMap<>();
  private final List<Path> unreadable = new java.util.concurrent.CopyOnWriteArrayList<>();

  private Catalog(DataLayout layout) {
    this.layout = layout;
  }

  /** Opens the data dir, finishing or discarding work a crash interrupted. */
  public static Catalog open(DataLayout layout) throws IOException {
    Files.createDirectories(layout.volumes());
    Files.createDirectories(layout.snapshots());
    Catalog catalog = new Catalog(layout);
    catalog.load(layout.volumes(), VolumeRecord.class);
    catalog.load(layout.snapshots(), SnapshotRecord.class);
    log.info(
        "catalog at {}: {} volumes, {} snapshots",
        layout.root(),
        catalog.volumes.size(),
        catalog.snapshots.size());
    return catalog;
  }

  private <T> void load(Path parent, Class<T> type) throws IOException {
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(parent)) {
      for (Path dir : dirs) {
        String name = dir.getFileName().toString();
        if (name.startsWith(DataLayout.CREATING) || name.startsWith(DataLayout.DELETING)) {
          // Never acknowledged to the CO (creating) or already acknowledged as gone (deleting).
          log.info("removing {} left by an interrupted operation", dir);
          removeTree(dir);
          continue;
        }
        if (name.startsWith(DataLayout.APPLYING)) {
          continue; // finished or discarded by the volume manager's recovery, which knows how
        }
        Path meta = dir.resolve(DataLayout.META);
        if (!Files.isRegularFile(meta)) {
          log.warn("ignoring {}: it has no {}", dir, DataLayout.META);
          continue;
        }
        T record;
        try {
          record = RECORDS.beanFrom(type, meta.toFile());
        } catch (IOException e) {
          // One unreadable file must not take every other volume of the node offline. The
          // directory is left as it is, for a person to look at.
          log.error(
              "ignoring {}: it cannot be read ({}); its volume stays on disk",
              meta,
              e.getMessage());
          unreadable.add(dir);
          continue;
        }
        if (record instanceof VolumeRecord volume && volume.id().equals(name)) {
          index(volume);
        } else if (record instanceof SnapshotRecord snapshot && snapshot.id().equals(name)) {
          index(snapshot);
        } else {
          log.warn("ignoring {}: its id does not match the directory name", meta);
        }
      }
    }
  }

  public Optional<VolumeRecord> volume(String id) {
    return Optional.ofNullable(id == null ? null : volumes.get(id));
  }

  public Optional<VolumeRecord> volumeByName(String name) {
    return Optional.ofNullable(volumeIdsByName.get(name)).flatMap(this::volume);
  }

  public Optional<SnapshotRecord> snapshot(String id) {
    return Optional.ofNullable(id == null ? null : snapshots.get(id));
  }

  public Optional<SnapshotRecord> snapshotByName(String name) {
    return Optional.ofNullable(snapshotIdsByName.get(name)).flatMap(this::snapshot);
  }

  /** All volumes, sorted by id (the order pagination relies on). */
  public List<VolumeRecord> volumes() {
    return volumes.values().stream().sorted(Comparator.comparing(VolumeRecord::id)).toList();
  }

  /** All snapshots, sorted by id. */
  public List<SnapshotRecord> snapshots() {
    return snapshots.values().stream().sorted(Comparator.comparing(SnapshotRecord::id)).toList();
  }

  /** Directories whose meta.json could not be read at start; their data is untouched. */
  public List<Path> unreadable() {
    return List.copyOf(unreadable);
  }

  public int volumeCount() {
    return volumes.size();
  }

  /** Writes the meta file inside a directory that is still being assembled. */
  public static void writeMeta(Path dir, Object record) throws IOException {
    AtomicFiles.write(dir.resolve(DataLayout.META), RECORDS.asBytes(record));
  }

  /** The volume record in {@code dir}'s meta file (a directory still being assembled). */
  public static VolumeRecord readVolume(Path dir) throws IOException {
    return RECORDS.beanFrom(VolumeRecord.class, dir.resolve(DataLayout.META).toFile());
  }

  /** Publishes an assembled volume directory under its final name and indexes it. */
  public void publish(VolumeRecord record, Path assembled) throws IOException {
    Path target = layout.volumeDir(record.id());
    Files.move(assembled, target, StandardCopyOption.ATOMIC_MOVE);
    AtomicFiles.syncDirectory(target.getParent());
    index(record);
  }

  public void publish(SnapshotRecord record, Path assembled) throws IOException {
    Path target = layout.snapshotDir(record.id());
    Files.move(assembled, target, StandardCopyOption.ATOMIC_MOVE);
    AtomicFiles.syncDirectory(target.getParent());
    index(record);
  }

  /** Replaces the record of an existing volume. */
  public void update(VolumeRecord record) throws IOException {
    writeMeta(layout.volumeDir(record.id()), record);
    volumes.put(record.id(), record);
  }

  public void removeVolume(VolumeRecord record) throws IOException {
    remove(
        layout.volumeDir(record.id()),
        () -> {
          volumeIdsByName.remove(record.name(), record.id());
          volumes.remove(record.id());
        });
  }

  public void removeSnapshot(SnapshotRecord record) throws IOException {
    remove(
        layout.snapshotDir(record.id()),
        () -> {
          snapshotIdsByName.remove(record.name(), record.id());
          snapshots.remove(record.id());
        });
  }

  /** Renames {@code dir} out of the way, then {@code forget}s it and removes its tree. */
  private static void remove(Path dir, Runnable forget) throws IOException {
    Path doomed = DataLayout.deleting(dir);
    Files.move(dir, doomed, StandardCopyOption.ATOMIC_MOVE);
    // durable before the tree goes: a crash must not bring back a half-removed volume or snapshot
    AtomicFiles.syncDirectory(doomed.getParent());
    forget.run();
    removeTree(doomed);
  }

  private void index(VolumeRecord record) {
    volumes.put(record.id(), record);
    volumeIdsByName.put(record.name(), record.id());
  }

  private void index(SnapshotRecord record) {
    snapshots.put(record.id(), record);
    snapshotIdsByName.put(record.name(), record.id());
  }

  /** Removes a directory the driver owns; symbolic links are removed, never followed. */
  public static void removeTree(Path dir) throws IOException {
    if (!Files.exists(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths
          .sorted(Comparator.reverseOrder())
          .forEach(
              path -> {
                try {
                  Files.deleteIfExists(path);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }
}
