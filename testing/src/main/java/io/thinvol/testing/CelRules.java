package io.thinvol.testing;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.CelValidationException;
import dev.cel.common.types.SimpleType;
import dev.cel.compiler.CelCompiler;
import dev.cel.compiler.CelCompilerFactory;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelRuntimeFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@code x-kubernetes-validations} rules of a CRD schema, evaluated with a real CEL
 * implementation as the API server evaluates them: {@code self} is the value at the rule's place in
 * the schema, and a rule naming {@code oldSelf} (a transition rule) runs only on an update where
 * the old object had a value there.
 */
final class CelRules {

  private static final CelCompiler COMPILER =
      CelCompilerFactory.standardCelCompilerBuilder()
          .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
          .addVar("self", SimpleType.DYN)
          .addVar("oldSelf", SimpleType.DYN)
          .build();

  /** What a ValidatingAdmissionPolicy's expressions see ({@link AdmissionPolicies}). */
  private static final CelCompiler ADMISSION_COMPILER =
      CelCompilerFactory.standardCelCompilerBuilder()
          .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
          .addVar("object", SimpleType.DYN)
          .addVar("oldObject", SimpleType.DYN)
          .addVar("request", SimpleType.DYN)
          .addVar("params", SimpleType.DYN)
          .build();

  private static final CelRuntime RUNTIME = CelRuntimeFactory.standardCelRuntimeBuilder().build();
  private static final Map<String, CelRuntime.Program> PROGRAMS = new ConcurrentHashMap<>();
  private static final Map<String, CelRuntime.Program> ADMISSION_PROGRAMS =
      new ConcurrentHashMap<>();

  private CelRules() {}

  /**
   * Builds the CEL runtime now: on a loaded machine that takes seconds, which inside the first
   * request of a test outlasts the client's timeout (its retry then meets a 409).
   */
  static void load() {}

  /** The broken rules, each as {@code field: Invalid value: "type": message}. */
  static List<String> problems(JsonNode schema, JsonNode value, JsonNode old) {
    List<String> problems = new ArrayList<>();
    walk(schema, value, old, "", problems);
    return problems;
  }

  private static void walk(
      JsonNode schema, JsonNode value, JsonNode old, String path, List<String> problems) {
    if (value == null || value.isMissingNode() || value.isNull()) {
      return;
    }
    for (JsonNode validation : schema.path("x-kubernetes-validations")) {
      String rule = validation.path("rule").asText();
      boolean transition = rule.contains("oldSelf");
      if (transition && (old == null || old.isMissingNode() || old.isNull())) {
        continue;
      }
      Map<String, Object> variables = new HashMap<>();
      variables.put("self", plain(value));
      if (transition) {
        variables.put("oldSelf", plain(old));
      }
      String failure;
      try {
        Object result = program(rule).eval(variables);
        failure =
            Boolean.TRUE.equals(result)
                ? null
                : validation.path("message").asText("failed rule: " + rule);
      } catch (CelEvaluationException e) {
        failure = "rule evaluation error: " + e.getMessage();
      }
      if (failure != null) {
        problems.add(
            (path.isEmpty() ? "<nil>" : path)
                + ": Invalid value: \""
                + schema.path("type").asText("object")
                + "\": "
                + failure);
      }
    }
    if (value.isObject()) {
      JsonNode properties = schema.path("properties");
      JsonNode additional = schema.path("additionalProperties");
      for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> field = it.next();
        JsonNode child =
            properties.has(field.getKey()) ? properties.get(field.getKey()) : additional;
        if (child.isObject()) {
          walk(
              child,
              field.getValue(),
              old == null ? null : old.get(field.getKey()),
              path.isEmpty() ? field.getKey() : path + "." + field.getKey(),
              problems);
        }
      }
    } else if (value.isArray()) {
      for (int i = 0; i < value.size(); i++) {
        // Elements of a list that is not a map list have no old value to compare with.
        walk(schema.path("items"), value.get(i), null, path + "[" + i + "]", problems);
      }
    }
  }

  /**
   * An admission policy's expression: its boolean result, or empty when it does not compile, does
   * not evaluate or is not a boolean (the policy's failure policy decides then).
   */
  static java.util.Optional<Boolean> evaluate(String expression, Map<String, Object> variables) {
    try {
      CelRuntime.Program program =
          ADMISSION_PROGRAMS.computeIfAbsent(
              expression,
              e -> {
                try {
                  return RUNTIME.createProgram(ADMISSION_COMPILER.compile(e).getAst());
                } catch (CelValidationException | CelEvaluationException failure) {
                  throw new IllegalArgumentException(failure);
                }
              });
      Map<String, Object> present = new HashMap<>();
      variables.forEach(
          (name, value) -> {
            if (value != null) {
              present.put(name, value);
            }
          });
      Object result = program.eval(present);
      return result instanceof Boolean b ? java.util.Optional.of(b) : java.util.Optional.empty();
    } catch (IllegalArgumentException | CelEvaluationException e) {
      return java.util.Optional.empty();
    }
  }

  private static CelRuntime.Program program(String rule) {
    return PROGRAMS.computeIfAbsent(
        rule,
        r -> {
          try {
            CelAbstractSyntaxTree ast = COMPILER.compile(r).getAst();
            return RUNTIME.createProgram(ast);
          } catch (CelValidationException | CelEvaluationException e) {
            throw new IllegalArgumentException("the CRD's rule does not compile: " + r, e);
          }
        });
  }

  /** A JSON value as CEL sees it: maps, lists, int64, double, strings and bools. */
  static Object plain(JsonNode node) {
    if (node.isObject()) {
      Map<String, Object> map = new LinkedHashMap<>();
      node.fields().forEachRemaining(f -> map.put(f.getKey(), plain(f.getValue())));
      return map;
    }
    if (node.isArray()) {
      List<Object> list = new ArrayList<>();
      node.forEach(e -> list.add(plain(e)));
      return list;
    }
    if (node.isIntegralNumber()) {
      return node.asLong();
    }
    if (node.isNumber()) {
      return node.asDouble();
    }
    if (node.isBoolean()) {
      return node.asBoolean();
    }
    return node.asText();
  }
}
