package io.thinvol.driver.kube;

import com.fasterxml.jackson.jr.ob.JSON;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * A parsed JSON document read by path, for the API server's answers and the tokens' claims: a
 * missing member reads as empty, never as an exception. jackson-jr parses it into maps and lists;
 * jackson-databind's tree model cost the driver ~450 classes and ~5 MiB (docs/decisions.md).
 */
public final class JsonTree implements Iterable<JsonTree> {

  private static final JsonTree MISSING = new JsonTree(null);

  private final Object value;

  private JsonTree(Object value) {
    this.value = value;
  }

  /** The document in {@code in}; an empty input is the missing tree. */
  public static JsonTree parse(InputStream in) throws IOException {
    return parse(in.readAllBytes());
  }

  /** The document in {@code json}; an empty input is the missing tree. */
  public static JsonTree parse(byte[] json) throws IOException {
    return new String(json, StandardCharsets.UTF_8).isBlank()
        ? MISSING
        : of(JSON.std.anyFrom(json));
  }

  private static JsonTree of(Object value) {
    return value == null ? MISSING : new JsonTree(value);
  }

  /** The member {@code name} of an object; missing for anything else. */
  public JsonTree path(String name) {
    return value instanceof Map<?, ?> map ? of(map.get(name)) : MISSING;
  }

  /** Whether this is an object with a member {@code name}. */
  public boolean has(String name) {
    return value instanceof Map<?, ?> map && map.containsKey(name);
  }

  /** The element at {@code index} of an array; missing for anything else. */
  public JsonTree get(int index) {
    return value instanceof List<?> list && index >= 0 && index < list.size()
        ? of(list.get(index))
        : MISSING;
  }

  /** The number of elements of an array or members of an object; 0 for anything else. */
  public int size() {
    if (value instanceof List<?> list) {
      return list.size();
    }
    return value instanceof Map<?, ?> map ? map.size() : 0;
  }

  /** The elements of an array; nothing for anything else. */
  @Override
  public Iterator<JsonTree> iterator() {
    if (!(value instanceof List<?> list)) {
      return Collections.emptyIterator();
    }
    Iterator<?> elements = list.iterator();
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        return elements.hasNext();
      }

      @Override
      public JsonTree next() {
        return of(elements.next());
      }
    };
  }

  public boolean isObject() {
    return value instanceof Map;
  }

  public boolean isArray() {
    return value instanceof List;
  }

  public boolean isTextual() {
    return value instanceof String;
  }

  /** A string, number or boolean as text; "" for anything else. */
  public String asText() {
    return asText("");
  }

  /** A string, number or boolean as text; {@code otherwise} for anything else. */
  public String asText(String otherwise) {
    if (value instanceof String || value instanceof Boolean) {
      return value.toString();
    }
    return value instanceof Number number ? number.toString() : otherwise;
  }

  /** A boolean; {@code otherwise} for anything else. */
  public boolean asBoolean(boolean otherwise) {
    return value instanceof Boolean bool ? bool : otherwise;
  }

  /** A number that fits a long (fractions cut off). */
  public boolean canConvertToLong() {
    if (value instanceof Integer || value instanceof Long) {
      return true;
    }
    if (value instanceof BigInteger big) {
      return big.bitLength() < Long.SIZE;
    }
    if (value instanceof Double || value instanceof Float || value instanceof BigDecimal) {
      double number = ((Number) value).doubleValue();
      return number >= Long.MIN_VALUE && number <= Long.MAX_VALUE;
    }
    return false;
  }

  /** A number as a long (fractions cut off); 0 for anything else. */
  public long asLong() {
    return value instanceof Number number ? number.longValue() : 0;
  }

  /** A number as an int (fractions cut off); 0 for anything else. */
  public int asInt() {
    return value instanceof Number number ? number.intValue() : 0;
  }
}
