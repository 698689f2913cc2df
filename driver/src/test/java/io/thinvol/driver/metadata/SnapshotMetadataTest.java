package io.thinvol.driver.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.GetPluginCapabilitiesRequest;
import csi.v1.PluginCapability;
import csi.v1.VolumeCapability;
import io.thinvol.driver.DriverHarness;
import io.thinvol.driver.XfsDataDir;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.store.DataLayout;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * GetMetadataAllocated and GetMetadataDelta against what was really written: a 1 GiB block volume
 * gets 300 scattered 4 KiB writes, is snapshotted, gets 200 more plus 50 writes of bytes its blocks
 * already hold, and is snapshotted again. The allocated ranges must cover every written block and
 * nothing else that holds a non-zero byte; the delta must list exactly the blocks whose bytes
 * changed. Both on a data dir of sparse copies (ext4) and one of reflinks (xfs).
 */
class SnapshotMetadataTest {

  private static final long GIB = 1L << 30;
  private static final int BLOCK = ScatteredWrites.BLOCK;
  private static final VolumeCapability RAW = Capabilities.block();

  @Test
  void sparseCopiesOnExt4ReportExactlyTheWrittenAndChangedBlocks() throws Exception {
    try (DriverHarness driver = new DriverHarness()) {
      assertExact(driver, "ext4 (sparse copies)");
    }
  }

  @Test
  void reflinksOnXfsReportExactlyTheWrittenAndChangedBlocks() throws Exception {
    try (XfsDataDir xfs = XfsDataDir.create()) {
      // the 1 GiB volume and its snapshots are sparse: promise more than the small disk holds
      try (DriverHarness driver = DriverHarness.withDataDir(xfs.path(), 8.0)) {
        assertExact(driver, "xfs (reflinks)");
      }
      assertThat(xfs.leaked()).isEmpty();
    }
  }

  private static void assertExact(DriverHarness driver, String dataDir) throws Exception {
    assertThat(
            driver
                .csi()
                .identity()
                .getPluginCapabilities(GetPluginCapabilitiesRequest.getDefaultInstance())
                .getCapabilitiesList())
        .contains(
            PluginCapability.newBuilder()
                .setService(
                    PluginCapability.Service.newBuilder()
                        .setType(PluginCapability.Service.Type.SNAPSHOT_METADATA_SERVICE))
                .build());
    DataLayout layout = new DataLayout(driver.dataDir());
    String volume = driver.create("cbt", GIB, RAW);
    ScatteredWrites writes = new ScatteredWrites(11, GIB);
    writes.writeRandom(attach(driver, volume), 300);
    detach(driver, volume);
    TreeSet<Long> inFirst = writes.blocks();
    String first = driver.csi().createSnapshot("cbt-1", volume);

    Path device = attach(driver, volume);
    TreeSet<Long> changed = writes.writeRandom(device, 200);
    TreeSet<Long> untouched = new TreeSet<>(inFirst);
    untouched.removeAll(changed);
    List<Long> rewritten = writes.rewriteSame(device, 50, untouched);
    detach(driver, volume);
    String second = driver.csi().createSnapshot("cbt-2", volume);

    MetadataStreams calls = new MetadataStreams(driver.csi(), GIB);
    Ranges allocated = calls.allocated(first, 0, 0);
    assertThat(inFirst).allMatch(block -> allocated.covers(block * BLOCK, BLOCK));
    assertThat(allocated.nonZeroOutside(layout.snapshotImage(first), GIB))
        .as("offset of a non-zero byte outside the allocated ranges")
        .isEqualTo(-1);
    assertThat(allocated.bytes()).as("bytes reported").isEqualTo(inFirst.size() * (long) BLOCK);

    Ranges delta = calls.delta(first, second, 0, 0);
    Ranges expected = Ranges.ofBlocks(changed, BLOCK);
    assertThat(delta.shown()).containsExactlyElementsOf(expected.shown());
    assertThat(rewritten).noneMatch(block -> delta.covers(block * BLOCK, BLOCK));
    System.out.printf(
        "%s: allocated %d ranges / %d bytes for %d written blocks (%d bytes); delta %d ranges /"
            + " %d bytes for %d changed blocks (%d bytes), %d same-data rewrites reported: 0%n",
        dataDir,
        allocated.list().size(),
        allocated.bytes(),
        inFirst.size(),
        inFirst.size() * (long) BLOCK,
        delta.list().size(),
        delta.bytes(),
        changed.size(),
        expected.bytes(),
        rewritten.size());

    assertPages(calls, allocated, delta, first, second);
  }

  /** Small pages and resumed calls give the same ranges as one call. */
  private static void assertPages(
      MetadataStreams calls, Ranges allocated, Ranges delta, String first, String second) {
    calls.responses = 0;
    assertThat(calls.allocated(first, 0, 7).shown()).isEqualTo(allocated.shown());
    assertThat(calls.responses).isGreaterThanOrEqualTo((allocated.list().size() + 6) / 7);
    assertThat(calls.delta(first, second, 0, 3).shown()).isEqualTo(delta.shown());

    int half = allocated.list().size() / 2;
    long[] before = allocated.list().get(half - 1);
    assertThat(calls.allocated(first, before[0] + before[1], 5).shown())
        .as("continued after the last range received")
        .isEqualTo(allocated.shown().subList(half, allocated.list().size()));
    long[] inside = allocated.list().get(half);
    long midRange = inside[0] + inside[1] - 1;
    Ranges fromMid = calls.allocated(first, midRange, 0);
    assertThat(fromMid.covers(midRange, 1)).as("the range holding starting_offset").isTrue();
    assertThat(fromMid.shown().subList(1, fromMid.list().size()))
        .isEqualTo(allocated.shown().subList(half + 1, allocated.list().size()));

    int deltaHalf = delta.list().size() / 2;
    long[] deltaBefore = delta.list().get(deltaHalf - 1);
    assertThat(calls.delta(first, second, deltaBefore[0] + deltaBefore[1], 0).shown())
        .isEqualTo(delta.shown().subList(deltaHalf, delta.list().size()));
  }

  private static Path attach(DriverHarness driver, String volume) {
    driver.stage(volume, driver.staging("cbt"), RAW);
    driver.publish(volume, driver.staging("cbt"), driver.blockTarget("cbt"), RAW, false);
    return driver.blockTarget("cbt");
  }

  private static void detach(DriverHarness driver, String volume) {
    driver.unpublish(volume, driver.blockTarget("cbt"));
    driver.unstage(volume, driver.staging("cbt"));
  }
}
