package io.thinvol.packaging;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinition;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What {@code kubectl get} prints for a custom resource, by the rules of the API server's table
 * convertor for CRDs (apiextensions-apiserver, {@code registry/customresource/tableconvertor}) and
 * kubectl's table printer: NAME first (NAMESPACE before it with {@code -A}), then the CRD's printer
 * columns in the CRD's order, those of a priority above 0 only with {@code -o wide}; headers
 * upper-cased; a value that is absent prints {@code <none>}; a {@code date} column prints the time
 * since its value ({@code apimachinery/pkg/util/duration.HumanDuration}), which is {@code
 * <invalid>} for a time more than a second ahead. Enough JSONPath for thinvol's columns: fields and
 * one {@code [?(@.field=="value")]} filter.
 */
final class KubectlTable {

  private static final Pattern FILTER = Pattern.compile("\\[\\?\\(@\\.(\\w+)==\"([^\"]*)\"\\)\\]");

  private KubectlTable() {}

  static List<String> header(
      List<CustomResourceColumnDefinition> columns, boolean wide, boolean allNamespaces) {
    List<String> header = new ArrayList<>();
    if (allNamespaces) {
      header.add("NAMESPACE");
    }
    header.add("NAME");
    for (CustomResourceColumnDefinition column : shown(columns, wide)) {
      header.add(column.getName().toUpperCase(Locale.ROOT));
    }
    return header;
  }

  /** The cells after NAME of one object, as the API server's table convertor fills them. */
  static List<String> row(
      List<CustomResourceColumnDefinition> columns, JsonNode object, boolean wide, Instant now) {
    List<String> row = new ArrayList<>();
    for (CustomResourceColumnDefinition column : shown(columns, wide)) {
      JsonNode value = at(object, column.getJsonPath());
      row.add(value == null || value.isNull() ? "<none>" : cell(column.getType(), value, now));
    }
    return row;
  }

  private static List<CustomResourceColumnDefinition> shown(
      List<CustomResourceColumnDefinition> columns, boolean wide) {
    return columns.stream()
        .filter(c -> wide || c.getPriority() == null || c.getPriority() == 0)
        .toList();
  }

  private static String cell(String type, JsonNode value, Instant now) {
    if (!"date".equals(type)) {
      return value.asText();
    }
    try {
      return humanDuration(Duration.between(Instant.parse(value.asText()), now));
    } catch (DateTimeParseException e) {
      return "<invalid>";
    }
  }

  /** HumanDuration up to two years. */
  static String humanDuration(Duration since) {
    long seconds = since.toSeconds();
    if (seconds < -1) {
      return "<invalid>";
    }
    if (seconds < 0) {
      return "0s";
    }
    if (seconds < 120) {
      return seconds + "s";
    }
    long minutes = since.toMinutes();
    if (minutes < 10) {
      return seconds % 60 == 0 ? minutes + "m" : minutes + "m" + seconds % 60 + "s";
    }
    if (minutes < 180) {
      return minutes + "m";
    }
    long hours = since.toHours();
    if (hours < 8) {
      return minutes % 60 == 0 ? hours + "h" : hours + "h" + minutes % 60 + "m";
    }
    if (hours < 48) {
      return hours + "h";
    }
    if (hours < 24 * 8) {
      return hours % 24 == 0 ? hours / 24 + "d" : hours / 24 + "d" + hours % 24 + "h";
    }
    if (hours < 24 * 365 * 2) {
      return hours / 24 + "d";
    }
    throw new IllegalArgumentException("years are beyond this sketch: " + since);
  }

  /** The value at a column's JSONPath, or null where it has none. */
  static JsonNode at(JsonNode object, String jsonPath) {
    JsonNode node = object;
    String rest = jsonPath;
    while (!rest.isEmpty() && node != null) {
      Matcher filter = FILTER.matcher(rest);
      if (filter.lookingAt()) {
        node = matching(node, filter.group(1), filter.group(2));
        rest = rest.substring(filter.end());
      } else if (rest.startsWith(".")) {
        int end = 1;
        while (end < rest.length() && rest.charAt(end) != '.' && rest.charAt(end) != '[') {
          end++;
        }
        node = node.get(rest.substring(1, end));
        rest = rest.substring(end);
      } else {
        throw new IllegalArgumentException("JSONPath beyond this sketch: " + jsonPath);
      }
    }
    return node;
  }

  private static JsonNode matching(JsonNode array, String field, String value) {
    if (!array.isArray()) {
      return null;
    }
    for (JsonNode item : array) {
      if (value.equals(item.path(field).asText(null))) {
        return item;
      }
    }
    return null;
  }
}
