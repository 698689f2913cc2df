package io.thinvol.testing;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Checks an object against a CRD's openAPIV3Schema the way the API server's validation does for
 * what the schema can say: types, required fields, enums, patterns, bounds, and unknown fields
 * (which a strict {@code kubectl apply} refuses). CEL rules are not evaluated.
 */
public final class SchemaValidator {

  private static final Set<String> ROOT_FIELDS = Set.of("apiVersion", "kind", "metadata");

  private SchemaValidator() {}

  /** The problems found, each with the path of the field; empty when the object is valid. */
  public static List<String> validate(JsonNode schema, JsonNode value) {
    List<String> problems = new ArrayList<>();
    check(schema, value, "", problems);
    return problems;
  }

  private static void check(JsonNode schema, JsonNode value, String path, List<String> problems) {
    String where = path.isEmpty() ? "the object" : path;
    if (value.isNull()) {
      if (!schema.path("nullable").asBoolean(false)) {
        problems.add(where + " is null");
      }
      return;
    }
    if (schema.path("x-kubernetes-int-or-string").asBoolean(false)) {
      if (!value.isIntegralNumber() && !value.isTextual()) {
        problems.add(where + " must be an integer or a string");
      }
      return;
    }
    String type = schema.path("type").asText("");
    switch (type) {
      case "object" -> object(schema, value, path, where, problems);
      case "array" -> {
        if (!value.isArray()) {
          problems.add(where + " must be an array");
          return;
        }
        for (int i = 0; i < value.size(); i++) {
          check(schema.path("items"), value.get(i), path + "[" + i + "]", problems);
        }
      }
      case "string" -> string(schema, value, where, problems);
      case "integer" -> {
        if (!value.isIntegralNumber()) {
          problems.add(where + " must be an integer, not " + value);
        } else {
          bounds(schema, value, where, problems);
        }
      }
      case "number" -> {
        if (!value.isNumber()) {
          problems.add(where + " must be a number, not " + value);
        } else {
          bounds(schema, value, where, problems);
        }
      }
      case "boolean" -> {
        if (!value.isBoolean()) {
          problems.add(where + " must be true or false, not " + value);
        }
      }
      default -> {}
    }
  }

  private static void object(
      JsonNode schema, JsonNode value, String path, String where, List<String> problems) {
    if (!value.isObject()) {
      problems.add(where + " must be an object");
      return;
    }
    for (JsonNode required : schema.path("required")) {
      if (!value.has(required.asText())) {
        problems.add(where + " lacks the required field " + required.asText());
      }
    }
    JsonNode properties = schema.path("properties");
    JsonNode additional = schema.path("additionalProperties");
    boolean open =
        schema.path("x-kubernetes-preserve-unknown-fields").asBoolean(false)
            || (properties.isMissingNode() && additional.isMissingNode());
    for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> field = it.next();
      String child = path.isEmpty() ? field.getKey() : path + "." + field.getKey();
      if (path.isEmpty() && ROOT_FIELDS.contains(field.getKey())) {
        continue; // every object has these; the API server checks them itself
      }
      if (properties.has(field.getKey())) {
        check(properties.get(field.getKey()), field.getValue(), child, problems);
      } else if (additional.isObject()) {
        check(additional, field.getValue(), child, problems);
      } else if (!open) {
        problems.add(child + " is not a field of this kind");
      }
    }
  }

  private static void string(JsonNode schema, JsonNode value, String where, List<String> problems) {
    if (!value.isTextual()) {
      problems.add(where + " must be a string, not " + value);
      return;
    }
    String text = value.asText();
    JsonNode allowed = schema.path("enum");
    if (allowed.isArray() && allowed.size() > 0) {
      boolean found = false;
      for (JsonNode option : allowed) {
        found |= option.asText().equals(text);
      }
      if (!found) {
        problems.add(where + " is \"" + text + "\", not one of " + allowed);
      }
    }
    if (schema.has("pattern")
        && !Pattern.compile(schema.get("pattern").asText()).matcher(text).find()) {
      problems.add(where + " \"" + text + "\" does not match " + schema.get("pattern").asText());
    }
    if (schema.has("maxLength") && text.length() > schema.get("maxLength").asInt()) {
      problems.add(where + " is longer than " + schema.get("maxLength").asInt());
    }
    if (schema.has("minLength") && text.length() < schema.get("minLength").asInt()) {
      problems.add(where + " is shorter than " + schema.get("minLength").asInt());
    }
  }

  private static String plain(JsonNode number) {
    double value = number.asDouble();
    return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
  }

  private static void bounds(JsonNode schema, JsonNode value, String where, List<String> problems) {
    if (schema.has("minimum") && value.asDouble() < schema.get("minimum").asDouble()) {
      problems.add(where + " is " + value + ", below the minimum " + plain(schema.get("minimum")));
    }
    if (schema.has("maximum") && value.asDouble() > schema.get("maximum").asDouble()) {
      problems.add(where + " is " + value + ", above the maximum " + plain(schema.get("maximum")));
    }
  }
}
