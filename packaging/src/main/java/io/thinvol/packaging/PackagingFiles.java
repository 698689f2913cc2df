package io.thinvol.packaging;

import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.operator.model.OperatorRbac;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every file generated from the model, by path from the repository root: the bundle, the chart's
 * CRDs and RBAC rules, the CRD reference. Committed, and a test fails when one differs; {@code
 * main} writes them.
 */
public final class PackagingFiles {

  public static final List<String> EXAMPLES =
      List.of(
          "storagebackend.yaml",
          "reclaimspacejob.yaml",
          "reclaimspacecronjob.yaml",
          "volumemove.yaml",
          "volumereplicationclass.yaml",
          "volumereplication.yaml");

  /** How a developer rewrites them after changing the model. */
  public static final String REGENERATE =
      "./mvnw -q -pl packaging -am test -Dtest=GeneratedFilesTest"
          + " -Dsurefire.failIfNoSpecifiedTests=false -Dthinvol.regenerate=true";

  private static final String YAML_HEADER =
      "# Generated from the model by io.thinvol.packaging.PackagingFiles; do not edit.\n";

  private PackagingFiles() {}

  public static Map<String, String> generate(Path root) {
    Release release = Release.current();
    Crds crds = Crds.in(root.resolve("crds"));
    Map<String, String> files = new LinkedHashMap<>();
    files.put(
        "bundle/manifests/" + Release.PACKAGE + ".clusterserviceversion.yaml",
        YAML_HEADER
            + yaml(ClusterServiceVersion.of(release, crds, almExamples(), resource("/icon.svg"))));
    for (Crds.Crd crd : crds.all()) {
      files.put("bundle/manifests/" + bundleName(crd), crd.text());
      files.put("charts/thinvol/crds/" + crd.file(), crd.text());
    }
    files.put(
        "bundle/metadata/annotations.yaml",
        YAML_HEADER + yaml(Ordered.map("annotations", bundleAnnotations())));
    files.put("bundle/bundle.Dockerfile", dockerfile());
    files.put(
        "charts/thinvol/files/cluster-rules.yaml",
        YAML_HEADER + yaml(OperatorRbac.clusterRules(false)));
    files.put(
        "charts/thinvol/files/openshift-cluster-rules.yaml", YAML_HEADER + yaml(openShiftOnly()));
    files.put(
        "charts/thinvol/files/namespace-rules.yaml",
        YAML_HEADER + yaml(OperatorRbac.namespaceRules()));
    files.put("docs/crd-reference.md", CrdReference.markdown(crds));
    return files;
  }

  /** The bundle's file name for a CRD, as operator-sdk names them. */
  static String bundleName(Crds.Crd crd) {
    return crd.definition().getSpec().getGroup()
        + "_"
        + crd.definition().getSpec().getNames().getPlural()
        + ".yaml";
  }

  static Map<String, String> bundleAnnotations() {
    Map<String, String> a = new LinkedHashMap<>();
    a.put("operators.operatorframework.io.bundle.mediatype.v1", "registry+v1");
    a.put("operators.operatorframework.io.bundle.manifests.v1", "manifests/");
    a.put("operators.operatorframework.io.bundle.metadata.v1", "metadata/");
    a.put("operators.operatorframework.io.bundle.package.v1", Release.PACKAGE);
    a.put("operators.operatorframework.io.bundle.channels.v1", Release.CHANNEL);
    a.put("operators.operatorframework.io.bundle.channel.default.v1", Release.CHANNEL);
    // Red Hat's catalogs index a bundle for the OpenShift versions this names.
    a.put("com.redhat.openshift.versions", Release.MIN_OPENSHIFT_VERSION);
    return a;
  }

  private static String dockerfile() {
    StringBuilder out = new StringBuilder();
    out.append("# Generated from the model by io.thinvol.packaging.PackagingFiles; do not edit.\n");
    out.append(
        "# Build from bundle/: docker build -f bundle.Dockerfile -t <registry>/thinvol-bundle:<version> .\n");
    out.append("FROM scratch\n\n");
    bundleAnnotations()
        .forEach((k, v) -> out.append("LABEL ").append(k).append('=').append(v).append('\n'));
    out.append("\nCOPY manifests /manifests/\nCOPY metadata /metadata/\n");
    return out.toString();
  }

  /** The rules the OpenShift toggle adds: the cluster rules on OpenShift, less the others. */
  static List<PolicyRule> openShiftOnly() {
    List<PolicyRule> plain = OperatorRbac.clusterRules(false);
    List<PolicyRule> extra = new ArrayList<>(OperatorRbac.clusterRules(true));
    extra.removeAll(plain);
    return extra;
  }

  static String almExamples() {
    List<Object> examples = new ArrayList<>();
    for (String example : EXAMPLES) {
      examples.add(
          Serialization.unmarshal(
              new String(resource("/examples/" + example), StandardCharsets.UTF_8), Map.class));
    }
    return Serialization.asJson(examples);
  }

  static byte[] resource(String name) {
    try (InputStream in = PackagingFiles.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + name);
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String yaml(Object value) {
    String text = Serialization.asYaml(value);
    return text.startsWith("---\n") ? text.substring(4) : text;
  }

  /** Writes every generated file under {@code args[0]} (default: the current directory). */
  public static void main(String[] args) throws IOException {
    Path root = Path.of(args.length > 0 ? args[0] : ".").toAbsolutePath().normalize();
    for (Map.Entry<String, String> file : generate(root).entrySet()) {
      Path path = root.resolve(file.getKey());
      Files.createDirectories(path.getParent());
      Files.writeString(path, file.getValue());
      System.out.println("wrote " + file.getKey());
    }
  }
}
