package io.thinvol.packaging;

import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.api.model.apiextensions.v1.ValidationRule;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** docs/crd-reference.md: every field of every CRD, from the generated schemas. */
final class CrdReference {

  private CrdReference() {}

  static String markdown(Crds crds) {
    StringBuilder out = new StringBuilder();
    out.append(
        "<!-- Generated from crds/ by io.thinvol.packaging.CrdReference; do not edit. -->\n");
    out.append("# CRD reference\n\n");
    out.append("All kinds are in the API group `thinvol.io`, version `v1alpha1`. Fields with a");
    out.append(" default are filled in by the API server; rules marked CEL are checked on every");
    out.append(" write.\n");
    for (Crds.Crd crd : crds.all()) {
      var spec = crd.definition().getSpec();
      out.append("\n## ").append(crd.kind()).append("\n\n");
      out.append("`").append(spec.getGroup()).append('/').append(crd.version()).append("`, ");
      out.append(spec.getScope().toLowerCase())
          .append(", plural `")
          .append(spec.getNames().getPlural())
          .append('`');
      if (spec.getNames().getShortNames() != null && !spec.getNames().getShortNames().isEmpty()) {
        out.append(", short name `")
            .append(String.join("`, `", spec.getNames().getShortNames()))
            .append('`');
      }
      out.append(".\n");
      for (String root : List.of("spec", "status")) {
        JSONSchemaProps schema = crd.schema().getProperties().get(root);
        if (schema == null) {
          continue;
        }
        out.append("\n### ").append(root).append("\n\n");
        out.append(
            "| field | type | default | validation | description |\n|---|---|---|---|---|\n");
        List<String> rows = new ArrayList<>();
        walk(root, schema, rows);
        rows.forEach(out::append);
      }
      List<ValidationRule> rules = crd.schema().getXKubernetesValidations();
      if (rules != null && !rules.isEmpty()) {
        out.append("\nObject rules (CEL): ");
        out.append(String.join("; ", rules.stream().map(r -> r.getMessage()).toList()));
        out.append(".\n");
      }
    }
    return out.toString();
  }

  private static void walk(String path, JSONSchemaProps schema, List<String> rows) {
    if (schema.getProperties() == null) {
      return;
    }
    for (Map.Entry<String, JSONSchemaProps> field : schema.getProperties().entrySet()) {
      String name = path + "." + field.getKey();
      JSONSchemaProps props = field.getValue();
      rows.add(
          row(
              name,
              props,
              schema.getRequired() != null && schema.getRequired().contains(field.getKey())));
      walk(name, props, rows);
      if (props.getItems() != null && props.getItems().getSchema() != null) {
        walk(name + "[]", props.getItems().getSchema(), rows);
      }
    }
  }

  private static String row(String path, JSONSchemaProps p, boolean required) {
    List<String> checks = new ArrayList<>();
    if (required) {
      checks.add("required");
    }
    if (p.getEnum() != null && !p.getEnum().isEmpty()) {
      checks.add("one of " + String.join(", ", p.getEnum().stream().map(e -> e.asText()).toList()));
    }
    if (p.getMinimum() != null) {
      checks.add("≥ " + number(p.getMinimum()));
    }
    if (p.getMaximum() != null) {
      checks.add("≤ " + number(p.getMaximum()));
    }
    if (p.getPattern() != null) {
      checks.add("pattern `" + p.getPattern().replace("|", "\\|") + "`");
    }
    if (p.getXKubernetesValidations() != null) {
      p.getXKubernetesValidations().forEach(r -> checks.add("CEL: " + r.getMessage()));
    }
    String type = p.getType() == null ? "" : p.getType();
    if ("array".equals(type) && p.getItems() != null && p.getItems().getSchema() != null) {
      type = "array of " + p.getItems().getSchema().getType();
    }
    if (p.getXKubernetesIntOrString() != null && p.getXKubernetesIntOrString()) {
      type = "int or string";
    }
    return "| `"
        + path.substring(path.indexOf('.') + 1)
        + "` | "
        + type
        + " | "
        + (p.getDefault() == null ? "" : "`" + p.getDefault().toString().replace("\"", "") + "`")
        + " | "
        + String.join("; ", checks)
        + " | "
        + (p.getDescription() == null
            ? ""
            : p.getDescription().replace("|", "\\|").replace("\n", " "))
        + " |\n";
  }

  private static String number(Double value) {
    return value == Math.rint(value) ? Long.toString(value.longValue()) : value.toString();
  }
}
