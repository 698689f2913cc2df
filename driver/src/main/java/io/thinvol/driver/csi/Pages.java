package io.thinvol.driver.csi;

import io.thinvol.driver.core.CsiException;
import java.util.List;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Pagination over a list sorted by id. The token is the id of the last entry returned, so a page
 * boundary stays valid when entries before or after it are deleted meanwhile.
 */
final class Pages {

  record Page<T>(List<T> entries, String nextToken) {}

  private Pages() {}

  static <T> Page<T> page(
      List<T> sorted,
      Function<T, String> id,
      Predicate<String> tokenFormat,
      int maxEntries,
      String startingToken) {
    if (maxEntries < 0) {
      throw CsiException.invalidArgument("max_entries must not be negative, got %d", maxEntries);
    }
    int from = 0;
    if (!startingToken.isEmpty()) {
      if (!tokenFormat.test(startingToken)) {
        throw CsiException.aborted(
            "starting_token %s was not issued by this driver; list again from the start",
            Requests.shown(startingToken));
      }
      while (from < sorted.size() && id.apply(sorted.get(from)).compareTo(startingToken) <= 0) {
        from++;
      }
    }
    int to = maxEntries == 0 ? sorted.size() : Math.min(sorted.size(), from + maxEntries);
    List<T> entries = sorted.subList(from, to);
    String next =
        to < sorted.size() && !entries.isEmpty() ? id.apply(entries.get(entries.size() - 1)) : "";
    return new Page<>(entries, next);
  }
}
