package io.thinvol.driver.release;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * What the driver image is made of, by name: the SHA-256 of every source file of the driver and
 * proto modules, of their poms, of the driver's Containerfile, entry point and the scripts that
 * make its image (its Java runtime, its host tools, its class data archive); and the versions the
 * root pom gives the driver's build (the managed versions and BOMs of the driver's and proto's own
 * dependencies, the properties their poms use, the plugins that make the jar, the Java release).
 * Contents only: timestamps and build output play no part, and nothing of the operator's or the
 * addons' is in it, so an operator-only change leaves it alone.
 *
 * @param version the driver's version these inputs were recorded with
 * @param inputs each input's value (a hash or a version) by its name
 */
record DriverInputs(String version, Map<String, String> inputs) {

  static final List<String> MODULES = List.of("driver", "proto");
  static final List<String> IMAGE_FILES =
      List.of(
          "driver.Containerfile",
          "packaging/image/thinvol-driver",
          "packaging/image/java-runtime.sh",
          "packaging/image/host-tools.sh",
          "packaging/image/class-data.sh");

  /** The plugins whose version changes the driver's jar. */
  static final Set<String> JAR_PLUGINS =
      Set.of(
          "maven-compiler-plugin",
          "maven-resources-plugin",
          "maven-jar-plugin",
          "maven-shade-plugin",
          "protobuf-maven-plugin");

  private static final Pattern PROPERTY = Pattern.compile("\\$\\{([^}]+)}");
  private static final String HEADER =
      """
      # The driver's inputs when thinvol.driver.version was last set, written by
      # DriverFingerprintTest (docs/upgrade.md): do not edit, bump the version and regenerate.
      """;

  /** The inputs as they are now under {@code root}, with the version the pom declares. */
  static DriverInputs of(Path root, String version) throws Exception {
    Map<String, String> inputs = new TreeMap<>();
    for (String module : MODULES) {
      hash(root, root.resolve(module).resolve("pom.xml"), inputs);
      try (Stream<Path> files = Files.walk(root.resolve(module).resolve("src/main"))) {
        for (Path file : files.filter(Files::isRegularFile).toList()) {
          hash(root, file, inputs);
        }
      }
    }
    for (String file : IMAGE_FILES) {
      hash(root, root.resolve(file), inputs);
    }
    inputs.putAll(versions(root));
    return new DriverInputs(version, inputs);
  }

  /** As {@link #text} wrote it; no inputs and no version when the file does not exist. */
  static DriverInputs read(Path file) throws IOException {
    Map<String, String> inputs = new TreeMap<>();
    String version = "";
    if (Files.exists(file)) {
      for (String line : Files.readAllLines(file)) {
        if (line.isBlank() || line.startsWith("#")) {
          continue;
        }
        String[] fields = line.split(" ", 2);
        if (fields[0].equals("version")) {
          version = fields[1];
        } else {
          inputs.put(fields[1], fields[0]);
        }
      }
    }
    return new DriverInputs(version, inputs);
  }

  /** One line per input, "value name", sorted by name: a change shows as a one-line diff. */
  String text() {
    StringBuilder out = new StringBuilder(HEADER).append("version ").append(version).append('\n');
    inputs.forEach((name, value) -> out.append(value).append(' ').append(name).append('\n'));
    return out.toString();
  }

  /** The names of the inputs that differ from {@code recorded}'s: changed, added or removed. */
  List<String> changedSince(DriverInputs recorded) {
    Set<String> names = new TreeSet<>(inputs.keySet());
    names.addAll(recorded.inputs.keySet());
    return names.stream()
        .filter(name -> !String.valueOf(inputs.get(name)).equals(recorded.inputs.get(name)))
        .toList();
  }

  private static void hash(Path root, Path file, Map<String, String> inputs)
      throws IOException, NoSuchAlgorithmException {
    byte[] digest = MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file));
    String name = root.relativize(file).toString().replace('\\', '/');
    inputs.put(name, HexFormat.of().formatHex(digest));
  }

  /** The versions the root pom gives the driver's build, named "kind:name". */
  private static Map<String, String> versions(Path root) throws Exception {
    Element project = parse(root.resolve("pom.xml"));
    Map<String, String> properties = new LinkedHashMap<>();
    for (Element property : children(child(project, "properties"))) {
      properties.put(property.getTagName(), property.getTextContent().strip());
    }
    Set<String> groups = new TreeSet<>();
    Map<String, String> versions = new TreeMap<>();
    for (String module : MODULES) {
      Path pomFile = root.resolve(module).resolve("pom.xml");
      Element pom = parse(pomFile);
      for (Element dependency : children(child(pom, "dependencies"))) {
        if (!"test".equals(text(dependency, "scope"))
            && !"io.thinvol".equals(text(dependency, "groupId"))) {
          groups.add(text(dependency, "groupId") + ":" + text(dependency, "artifactId"));
        }
      }
      Matcher used = PROPERTY.matcher(Files.readString(pomFile));
      while (used.find()) {
        if (properties.containsKey(used.group(1))) {
          versions.put("property:" + used.group(1), properties.get(used.group(1)));
        }
      }
    }
    versions.put("property:maven.compiler.release", properties.get("maven.compiler.release"));
    for (Element managed :
        children(child(child(project, "dependencyManagement"), "dependencies"))) {
      String group = text(managed, "groupId");
      String id = group + ":" + text(managed, "artifactId");
      boolean bom = "import".equals(text(managed, "scope"));
      if (groups.contains(id) || bom && groups.stream().anyMatch(g -> g.startsWith(group))) {
        versions.put("managed:" + id, resolve(text(managed, "version"), properties));
      }
    }
    Element build = child(project, "build");
    for (Element plugin : children(child(child(build, "pluginManagement"), "plugins"))) {
      if (JAR_PLUGINS.contains(text(plugin, "artifactId"))) {
        versions.put(
            "plugin:" + text(plugin, "artifactId"), resolve(text(plugin, "version"), properties));
      }
    }
    return versions;
  }

  private static String resolve(String value, Map<String, String> properties) {
    Matcher matcher = PROPERTY.matcher(value);
    StringBuilder out = new StringBuilder();
    while (matcher.find()) {
      String replacement = properties.getOrDefault(matcher.group(1), matcher.group());
      matcher.appendReplacement(out, Matcher.quoteReplacement(replacement));
    }
    return matcher.appendTail(out).toString();
  }

  private static Element parse(Path pom) throws Exception {
    return DocumentBuilderFactory.newInstance()
        .newDocumentBuilder()
        .parse(pom.toFile())
        .getDocumentElement();
  }

  private static List<Element> children(Element parent) {
    List<Element> elements = new ArrayList<>();
    if (parent != null) {
      for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
        if (node instanceof Element element) {
          elements.add(element);
        }
      }
    }
    return elements;
  }

  private static Element child(Element parent, String name) {
    return children(parent).stream()
        .filter(e -> e.getTagName().equals(name))
        .findFirst()
        .orElse(null);
  }

  private static String text(Element parent, String name) {
    Element element = child(parent, name);
    return element == null ? "" : element.getTextContent().strip();
  }
}
