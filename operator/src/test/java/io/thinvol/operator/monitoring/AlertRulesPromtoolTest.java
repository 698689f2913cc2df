package io.thinvol.operator.monitoring;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.api.v1alpha1.StorageBackend;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The rules as Prometheus reads them: rendered for a backend with the default thresholds, one with
 * its own, and the operator's groups, into target/promtool, then {@code promtool check rules} and
 * {@code promtool test rules} with the unit tests in src/test/resources/promtool (synthetic series
 * for every alert: fires when it should, not before, {@code for:} honoured, labels and
 * annotations). Fails without promtool under CI=true (.ci/run installs Debian's prometheus).
 */
class AlertRulesPromtoolTest {

  static final Path DIR = Path.of("target", "promtool");
  static final List<String> TESTS =
      List.of("node-alerts-test.yaml", "node-alerts-custom-test.yaml", "operator-alerts-test.yaml");

  private static Path promtool;

  @BeforeAll
  static void findPromtool() {
    Optional<Path> found =
        Stream.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
            .map(dir -> Path.of(dir, "promtool"))
            .filter(Files::isExecutable)
            .findFirst();
    if (found.isEmpty() && "true".equals(System.getenv("CI"))) {
      throw new AssertionError("promtool is not on the PATH: apt-get install prometheus");
    }
    Assumptions.assumeTrue(
        found.isPresent(),
        "promtool is not on the PATH (apt-get install prometheus): the alert rules' unit tests"
            + " are skipped");
    promtool = found.get();
  }

  @Test
  void rulesPassPromtoolsCheckAndEveryUnitTest() throws Exception {
    Files.createDirectories(DIR);
    List<Path> rules =
        List.of(
            write("thinvol-fast.rules.yaml", AlertRules.groups(backend("fast", ""))),
            write(
                "thinvol-big.rules.yaml",
                AlertRules.groups(
                    backend(
                        "big",
                        "  monitoring:\n    dataDirWarningPercent: 60\n"
                            + "    dataDirCriticalPercent: 80\n    fillPredictionHours: 48\n"
                            + "    promisedCapacityWarningPercent: 70\n"))),
            write("thinvol-operator.rules.yaml", AlertRules.operatorGroups()));
    List<String> check = new ArrayList<>(List.of(promtool.toString(), "check", "rules"));
    rules.forEach(rule -> check.add(rule.toString()));
    run(check);

    List<String> test = new ArrayList<>(List.of(promtool.toString(), "test", "rules"));
    for (String name : TESTS) {
      try (InputStream in = getClass().getResourceAsStream("/promtool/" + name)) {
        Files.write(DIR.resolve(name), in.readAllBytes());
      }
      test.add(DIR.resolve(name).toString());
    }
    run(test);
  }

  static StorageBackend backend(String name, String spec) {
    return Serialization.unmarshal(
        "apiVersion: thinvol.io/v1alpha1\nkind: StorageBackend\nmetadata:\n  name: "
            + name
            + "\nspec:\n"
            + (spec.isEmpty() ? "  {}\n" : spec),
        StorageBackend.class);
  }

  private static Path write(String name, List<Map<String, Object>> groups) throws IOException {
    Path file = DIR.resolve(name);
    Files.writeString(file, Serialization.asYaml(Map.of("groups", groups)));
    return file;
  }

  private static void run(List<String> command) throws Exception {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output;
    try (InputStream in = process.getInputStream()) {
      output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    assertThat(process.waitFor(2, TimeUnit.MINUTES)).as("%s finished", command).isTrue();
    assertThat(process.exitValue()).as("%s:%n%s", String.join(" ", command), output).isZero();
  }
}
