package io.thinvol.driver.core.metadata;

import io.thinvol.driver.host.ImageExtents.PhysicalExtent;
import java.util.ArrayList;
import java.util.List;

/**
 * Where two files share their disk blocks (reflinks): a byte both files keep at the same settled
 * disk address holds the same value in both, so nothing there needs to be read to be compared.
 */
public final class SharedRuns {

  private SharedRuns() {}

  /**
   * The runs of {@code [from, to)} that {@code a} and {@code b} (each in ascending order) map to
   * the same disk address, ascending and merged.
   */
  public static List<ByteRange> of(
      List<PhysicalExtent> a, List<PhysicalExtent> b, long from, long to) {
    List<ByteRange> runs = new ArrayList<>();
    int i = 0;
    int j = 0;
    while (i < a.size() && j < b.size()) {
      PhysicalExtent x = a.get(i);
      PhysicalExtent y = b.get(j);
      long low = Math.max(from, Math.max(x.logical(), y.logical()));
      long high = Math.min(to, Math.min(x.end(), y.end()));
      if (low < high
          && x.stable()
          && y.stable()
          && x.physical() - x.logical() == y.physical() - y.logical()) {
        add(runs, low, high);
      }
      if (x.end() <= y.end()) {
        i++;
      } else {
        j++;
      }
    }
    return runs;
  }

  private static void add(List<ByteRange> runs, long low, long high) {
    if (!runs.isEmpty() && runs.get(runs.size() - 1).end() == low) {
      ByteRange last = runs.remove(runs.size() - 1);
      runs.add(new ByteRange(last.offset(), high - last.offset()));
    } else {
      runs.add(new ByteRange(low, high - low));
    }
  }
}
