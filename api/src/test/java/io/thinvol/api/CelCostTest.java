package io.thinvol.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.api.model.apiextensions.v1.ValidationRule;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.MatchResult;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every {@code x-kubernetes-validations} rule of every CRD fits the API server's static CEL cost
 * limits, with a conservative worst-case estimate after the Kubernetes cost model:
 *
 * <ul>
 *   <li>a list holds at most its {@code maxItems}; unbounded, as many of its smallest elements as
 *       fit in the largest request, {@code 3 MiB / (min element size + 1)} (an object's smallest
 *       serialisation is {@code {}}, 2 bytes; a string's {@code ""}, 2);
 *   <li>a string is at most its {@code maxLength} bytes (unbounded: 3 MiB); comparing or scanning
 *       it costs {@code 1 + ceil(0.1 × length)} (CEL's string traversal factor);
 *   <li>a rule costs at most {@code tokens × L^d × S × C}: every token of the expression is
 *       evaluated at most once per iteration of its enclosing comprehensions ({@code d} nested
 *       {@code all/exists/exists_one/filter/map} over lists of at most {@code L} elements), each at
 *       most the cost {@code S} of comparing the longest string the rule reads, and the rule runs
 *       {@code C} times: once per element of every list that encloses it;
 *   <li>limits: {@code StaticEstimatedCostLimit} 10,000,000 per rule and {@code
 *       StaticEstimatedCRDCostLimit} 100,000,000 per CRD.
 * </ul>
 */
class CelCostTest {

  static final long RULE_LIMIT = 10_000_000L;
  static final long CRD_LIMIT = 100_000_000L;
  static final long MAX_REQUEST_BYTES = 3L * 1024 * 1024;
  static final long METADATA_NAME = 253;

  private static final Pattern TOKEN =
      Pattern.compile("[A-Za-z_][A-Za-z0-9_]*|\\d+|==|!=|<=|>=|&&|\\|\\||\"[^\"]*\"|[<>+\\-*/!.(]");
  private static final Pattern MACRO = Pattern.compile("\\.(all|exists|exists_one|filter|map)\\(");

  @ParameterizedTest
  @ValueSource(
      strings = {
        "storagebackends.thinvol.io-v1.yml",
        "reclaimspacejobs.thinvol.io-v1.yml",
        "reclaimspacecronjobs.thinvol.io-v1.yml"
      })
  void everyRuleAndCrdIsWithinTheApiServersCostLimits(String file) throws IOException {
    CustomResourceDefinition crd;
    try (InputStream in = Files.newInputStream(Path.of("..", "crds", file))) {
      crd = Serialization.unmarshal(in, CustomResourceDefinition.class);
    }
    List<RuleCost> costs = new ArrayList<>();
    crd.getSpec()
        .getVersions()
        .forEach(v -> walk(v.getSchema().getOpenAPIV3Schema(), "", 1, costs));
    long total = costs.stream().mapToLong(RuleCost::cost).sum();
    System.out.printf("CEL cost of %s: total %,d%n", file, total);
    costs.forEach(c -> System.out.printf("  %,15d  %s: %s%n", c.cost(), c.path(), c.rule()));
    assertThat(costs)
        .as("rules above the per-rule limit %,d", RULE_LIMIT)
        .allSatisfy(
            c ->
                assertThat(c.cost())
                    .as(c.path() + ": " + c.rule())
                    .isLessThanOrEqualTo(RULE_LIMIT));
    assertThat(total).as("estimated cost of all rules of %s", file).isLessThanOrEqualTo(CRD_LIMIT);
  }

  record RuleCost(String path, String rule, long cost) {}

  /** {@code cardinality}: how often a rule at this node may run (product of enclosing lists). */
  private static void walk(
      JSONSchemaProps node, String path, long cardinality, List<RuleCost> out) {
    if (node.getXKubernetesValidations() != null) {
      for (ValidationRule rule : node.getXKubernetesValidations()) {
        out.add(
            new RuleCost(
                path, rule.getRule(), saturate(ruleCost(node, rule.getRule()), cardinality)));
      }
    }
    if (node.getProperties() != null) {
      for (Map.Entry<String, JSONSchemaProps> p : node.getProperties().entrySet()) {
        walk(p.getValue(), path + "." + p.getKey(), cardinality, out);
      }
    }
    if (node.getItems() != null && node.getItems().getSchema() != null) {
      walk(node.getItems().getSchema(), path + "[]", saturate(cardinality, maxItems(node)), out);
    }
    if (node.getAdditionalProperties() != null
        && node.getAdditionalProperties().getSchema() != null) {
      walk(
          node.getAdditionalProperties().getSchema(),
          path + "{}",
          saturate(cardinality, maxProperties(node)),
          out);
    }
  }

  private static long ruleCost(JSONSchemaProps node, String rule) {
    List<String> tokens = TOKEN.matcher(rule).results().map(MatchResult::group).toList();
    long perIteration =
        saturate(tokens.size(), 1 + (longestString(node, Set.copyOf(tokens)) + 9) / 10);
    long iterations = 1;
    int depth = comprehensionDepth(rule);
    for (int i = 0; i < depth; i++) {
      iterations = saturate(iterations, maxItems(node));
    }
    return saturate(perIteration, iterations);
  }

  /**
   * The longest string a rule at {@code node} can read: the strings below it along the field names
   * the rule mentions (list and map elements through its variables); {@code metadata.name} is at
   * most 253.
   */
  private static long longestString(JSONSchemaProps node, Set<String> names) {
    long longest = 0;
    if ("string".equals(node.getType())) {
      longest = node.getMaxLength() != null ? node.getMaxLength() : MAX_REQUEST_BYTES;
    }
    if (node.getProperties() != null) {
      for (Map.Entry<String, JSONSchemaProps> p : node.getProperties().entrySet()) {
        if (names.contains(p.getKey())) {
          longest =
              Math.max(
                  longest,
                  p.getKey().equals("metadata") && p.getValue().getProperties() == null
                      ? METADATA_NAME
                      : longestString(p.getValue(), names));
        }
      }
    }
    if (node.getItems() != null && node.getItems().getSchema() != null) {
      longest = Math.max(longest, longestString(node.getItems().getSchema(), names));
    }
    if (node.getAdditionalProperties() != null
        && node.getAdditionalProperties().getSchema() != null) {
      longest = Math.max(longest, longestString(node.getAdditionalProperties().getSchema(), names));
    }
    return longest;
  }

  /** How deeply the rule nests comprehension macros. */
  private static int comprehensionDepth(String rule) {
    Set<Integer> macroParens = new HashSet<>();
    MACRO.matcher(rule).results().forEach(m -> macroParens.add(m.end() - 1));
    int depth = 0;
    int deepest = 0;
    Deque<Boolean> open = new ArrayDeque<>();
    for (int i = 0; i < rule.length(); i++) {
      if (rule.charAt(i) == '(') {
        boolean macro = macroParens.contains(i);
        open.push(macro);
        if (macro) {
          deepest = Math.max(deepest, ++depth);
        }
      } else if (rule.charAt(i) == ')' && !open.isEmpty() && open.pop()) {
        depth--;
      }
    }
    return deepest;
  }

  private static long maxItems(JSONSchemaProps list) {
    if (list.getMaxItems() != null) {
      return list.getMaxItems();
    }
    JSONSchemaProps item = list.getItems() == null ? null : list.getItems().getSchema();
    return MAX_REQUEST_BYTES / (minSize(item) + 1);
  }

  private static long maxProperties(JSONSchemaProps map) {
    return map.getMaxProperties() != null
        ? map.getMaxProperties()
        : MAX_REQUEST_BYTES / (minSize(map.getAdditionalProperties().getSchema()) + 4);
  }

  /** The smallest JSON of a value: {@code {}}, {@code []}, {@code ""} are 2 bytes, a number 1. */
  private static long minSize(JSONSchemaProps schema) {
    if (schema == null) {
      return 1;
    }
    return switch (String.valueOf(schema.getType())) {
      case "integer", "number" -> 1;
      case "boolean" -> 4;
      default -> 2;
    };
  }

  private static long saturate(long a, long b) {
    return a != 0 && b > Long.MAX_VALUE / a ? Long.MAX_VALUE : a * b;
  }
}
