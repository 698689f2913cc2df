package io.thinvol.driver.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class CatalogTest {

  private Path root;
  private DataLayout layout;

  @BeforeEach
  void createRoot() throws IOException {
    root = Files.createTempDirectory("thinvol-catalog-");
    layout = new DataLayout(root);
  }

  @AfterEach
  void removeRoot() throws IOException {
    Catalog.removeTree(root);
  }

  private static VolumeRecord record(String id, String name) {
    return new VolumeRecord(
        VolumeRecord.SCHEMA_VERSION,
        id,
        name,
        1 << 20,
        AccessType.BLOCK,
        null,
        null,
        "2026-11-22T00:00:00Z",
        Map.of(),
        false,
        null,
        null,
        null);
  }

  @Test
  void rebuildsFromDiskAndDiscardsInterruptedWork() throws IOException {
    Catalog catalog = Catalog.open(layout);
    String id = Ids.newVolumeId();
    Path assembled = DataLayout.creating(layout.volumeDir(id));
    Files.createDirectories(assembled);
    Catalog.writeMeta(assembled, record(id, "kept"));
    catalog.publish(record(id, "kept"), assembled);

    String interrupted = Ids.newVolumeId();
    Path half = DataLayout.creating(layout.volumeDir(interrupted));
    Files.createDirectories(half);
    Files.writeString(half.resolve(DataLayout.IMAGE), "partial");
    Path deleting = DataLayout.deleting(layout.volumeDir(Ids.newVolumeId()));
    Files.createDirectories(deleting);
    Files.createDirectories(layout.volumes().resolve("stray-dir-without-meta"));

    Catalog reopened = Catalog.open(layout);
    assertThat(reopened.volumes()).containsExactly(record(id, "kept"));
    assertThat(reopened.volumeByName("kept")).contains(record(id, "kept"));
    assertThat(half).doesNotExist();
    assertThat(deleting).doesNotExist();
    assertThat(layout.volumes().resolve("stray-dir-without-meta")).exists();
    assertThat(root.resolve("volumes").resolve(id).resolve(".meta.json.tmp")).doesNotExist();

    reopened.update(record(id, "kept").withSize(2 << 20, false));
    assertThat(Catalog.open(layout).volume(id).orElseThrow().sizeBytes()).isEqualTo(2 << 20);
    reopened.removeVolume(reopened.volume(id).orElseThrow());
    assertThat(Catalog.open(layout).volumes()).isEmpty();
    assertThat(layout.volumeDir(id)).doesNotExist();
  }

  @Test
  void idsAreFixedFormatAndNeverPaths() {
    String id = Ids.newVolumeId();
    assertThat(Ids.isVolumeId(id)).isTrue();
    assertThat(Ids.isSnapshotId(Ids.newSnapshotId())).isTrue();
    assertThat(Ids.isVolumeId("vol-../../../../etc/passwd-0000000")).isFalse();
    assertThat(Ids.isVolumeId(null)).isFalse();
  }

  @Test
  void anUnreadableMetaFileSkipsOnlyItsVolumeAndTouchesNothing() throws IOException {
    Catalog catalog = Catalog.open(layout);
    String good = Ids.newVolumeId();
    Path assembled = DataLayout.creating(layout.volumeDir(good));
    Files.createDirectories(assembled);
    Catalog.writeMeta(assembled, record(good, "good"));
    catalog.publish(record(good, "good"), assembled);
    String broken = Ids.newVolumeId();
    Files.createDirectories(layout.volumeDir(broken));
    Files.writeString(
        layout.volumeDir(broken).resolve(DataLayout.META), "{\"schemaVersion\": 1, \"id\": ");
    Files.writeString(layout.volumeImage(broken), "user data");

    Catalog reopened = Catalog.open(layout);
    assertThat(reopened.volumes()).extracting(VolumeRecord::id).containsExactly(good);
    assertThat(reopened.unreadable()).containsExactly(layout.volumeDir(broken));
    assertThat(Files.readString(layout.volumeImage(broken))).isEqualTo("user data");
  }

  @Test
  void readsMetaFilesAsEarlierDriversWroteThem() throws IOException {
    // jackson-databind's output (declaration order, nulls left out), plus a member a newer
    // driver might add: the records must read the same after the switch to jackson-jr.
    String id = Ids.newVolumeId();
    Files.createDirectories(layout.volumeDir(id));
    Files.writeString(
        layout.volumeDir(id).resolve(DataLayout.META),
        """
        {
          "schemaVersion" : 1,
          "id" : "%s",
          "name" : "pvc-1",
          "sizeBytes" : 1073741824,
          "accessType" : "MOUNT",
          "fsType" : "ext4",
          "contentSource" : {
            "kind" : "SNAPSHOT",
            "id" : "snap-1"
          },
          "createdAt" : "2026-11-22T00:00:00Z",
          "parameters" : {
            "ioMode" : "direct"
          },
          "growFilesystemPending" : true,
          "formatted" : true,
          "ioMode" : "direct",
          "addedByANewerDriver" : [ 1, { "x" : null } ]
        }
        """
            .formatted(id));

    Catalog catalog = Catalog.open(layout);

    assertThat(catalog.volume(id))
        .contains(
            new VolumeRecord(
                1,
                id,
                "pvc-1",
                1L << 30,
                AccessType.MOUNT,
                "ext4",
                new ContentSource(ContentSource.Kind.SNAPSHOT, "snap-1"),
                "2026-11-22T00:00:00Z",
                Map.of("ioMode", "direct"),
                true,
                true,
                "direct",
                null));
    assertThat(catalog.unreadable()).isEmpty();
  }

  @Test
  void writesNoNullMembers() throws IOException {
    Path dir = Files.createDirectories(root.resolve("written"));
    Catalog.writeMeta(dir, record("vol-1", "pvc-1"));

    String written = Files.readString(dir.resolve(DataLayout.META));
    assertThat(written).contains("\"id\" : \"vol-1\"").doesNotContain("null");
    assertThat(written.lines()).hasSizeGreaterThan(5); // indented, for a person reading it
  }
}
