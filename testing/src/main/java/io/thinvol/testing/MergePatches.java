package io.thinvol.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/** What a JSON merge patch (RFC 7386) means for the stored object. */
final class MergePatches {

  private MergePatches() {}

  /** Removes every field whose value is null: a merge patch's null removes, never stores, it. */
  static void dropNulls(JsonNode node) {
    if (node.isObject()) {
      List<String> nulls = new ArrayList<>();
      node.fields()
          .forEachRemaining(
              field -> {
                if (field.getValue().isNull()) {
                  nulls.add(field.getKey());
                } else {
                  dropNulls(field.getValue());
                }
              });
      ((ObjectNode) node).remove(nulls);
    } else if (node.isArray()) {
      node.forEach(MergePatches::dropNulls);
    }
  }
}
