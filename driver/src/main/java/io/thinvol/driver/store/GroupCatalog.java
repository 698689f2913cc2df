package io.thinvol.driver.store;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The group snapshots on this node: one file each under {@code groups/}, written atomically (temp
 * file, fsync, rename, fsync of the directory) and indexed in memory. Rebuilt from disk at start.
 */
public final class GroupCatalog {

  private static final Logger log = LoggerFactory.getLogger(GroupCatalog.class);
  private static final String SUFFIX = ".json";

  private final DataLayout layout;
  private final ConcurrentMap<String, GroupSnapshotRecord> groups = new ConcurrentHashMap<>();
  private final ConcurrentMap<String, String> idsByName = new ConcurrentHashMap<>();
  private final Set<String> unreadable = ConcurrentHashMap.newKeySet();

  private GroupCatalog(DataLayout layout) {
    this.layout = layout;
  }

  public static GroupCatalog open(DataLayout layout) throws IOException {
    Files.createDirectories(layout.groups());
    GroupCatalog catalog = new GroupCatalog(layout);
    catalog.load();
    return catalog;
  }

  private void load() throws IOException {
    try (DirectoryStream<Path> files = Files.newDirectoryStream(layout.groups())) {
      for (Path file : files) {
        String name = file.getFileName().toString();
        if (name.startsWith(".")) {
          Files.delete(file); // a write that never reached its rename: never acknowledged
          continue;
        }
        String id = name.endsWith(SUFFIX) ? name.substring(0, name.length() - SUFFIX.length()) : "";
        if (!Ids.isGroupSnapshotId(id)) {
          log.warn("ignoring {}: not a group snapshot file", file);
          continue;
        }
        try {
          GroupSnapshotRecord record =
              Catalog.RECORDS.beanFrom(GroupSnapshotRecord.class, file.toFile());
          if (record.id().equals(id)) {
            index(record);
            continue;
          }
          log.warn("ignoring {}: its id does not match the file name", file);
        } catch (IOException e) {
          log.error("ignoring {}: it cannot be read ({}); it stays on disk", file, e.getMessage());
        }
        unreadable.add(id); // its members must not be taken for leftovers
      }
    }
  }

  public Optional<GroupSnapshotRecord> group(String id) {
    return Optional.ofNullable(id == null ? null : groups.get(id));
  }

  public Optional<GroupSnapshotRecord> byName(String name) {
    return Optional.ofNullable(idsByName.get(name)).flatMap(this::group);
  }

  /** Whether a group with this id may exist: it is known, or its file could not be read. */
  public boolean mayExist(String id) {
    return groups.containsKey(id) || unreadable.contains(id);
  }

  public int size() {
    return groups.size();
  }

  /** Writes the group's file durably, then indexes it. */
  public void publish(GroupSnapshotRecord record) throws IOException {
    AtomicFiles.write(layout.groupFile(record.id()), Catalog.RECORDS.asBytes(record));
    index(record);
  }

  /** Removes the group's file durably; its members are the caller's to remove afterwards. */
  public void remove(GroupSnapshotRecord record) throws IOException {
    Files.deleteIfExists(layout.groupFile(record.id()));
    AtomicFiles.syncDirectory(layout.groups());
    idsByName.remove(record.name(), record.id());
    groups.remove(record.id());
  }

  private void index(GroupSnapshotRecord record) {
    groups.put(record.id(), record);
    idsByName.put(record.name(), record.id());
  }
}
