package io.thinvol.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionNames;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * What {@code kubectl get} prints for thinvol's kinds, worked out from the committed CRDs by
 * kubectl's rules ({@link KubectlTable}), is what the docs show.
 */
class KubectlColumnsTest {

  private static final Pattern CONSOLE = Pattern.compile("```console\\n(.*?)```", Pattern.DOTALL);
  private static final Pattern CELLS = Pattern.compile(" {2,}");

  private final Crds crds = Crds.in(GeneratedFilesTest.ROOT.resolve("crds"));

  /** One {@code $ kubectl get} of a thinvol kind in the docs, with the table printed under it. */
  private record Documented(
      String where, Crds.Crd crd, boolean wide, boolean allNamespaces, List<String> table) {}

  @Test
  @DisplayName("Every documented kubectl get of a thinvol kind prints the CRD's columns in order")
  void documentedTablesHaveTheColumnsKubectlPrints() throws IOException {
    List<Documented> tables = documented();
    assertThat(tables)
        .extracting(t -> t.crd().kind())
        .contains("StorageBackend", "ReclaimSpaceJob", "ReclaimSpaceCronJob");
    for (Documented table : tables) {
      List<String> header =
          KubectlTable.header(columns(table.crd()), table.wide(), table.allNamespaces());
      assertThat(cells(table.table().get(0))).as(table.where()).isEqualTo(header);
      for (String row : table.table().subList(1, table.table().size())) {
        assertThat(cells(row))
            .as("%s: %s", table.where(), row)
            .hasSameSizeAs(header)
            .doesNotContain("<invalid>");
      }
    }
  }

  @Test
  @DisplayName("kubectl get rscj -o wide shows the next run, which is to come, as its time")
  void theNextRunIsShownAsATime() throws IOException {
    Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    Instant next = now.plus(Duration.ofHours(3));
    JsonNode cronJob =
        new ObjectMapper()
            .readTree(
                String.format(
                    """
                    {"metadata": {"name": "nightly-data", "creationTimestamp": "%s"},
                     "spec": {"schedule": "30 2 * * *", "suspend": false},
                     "status": {"lastScheduleTime": "%s", "nextScheduleTime": "%s"}}
                    """,
                    now.minus(Duration.ofDays(12)), now.minus(Duration.ofHours(21)), next));
    List<CustomResourceColumnDefinition> columns = columns(crds.ofKind("ReclaimSpaceCronJob"));
    assertThat(KubectlTable.row(columns, cronJob, true, now))
        .containsExactly("30 2 * * *", "false", "<none>", "21h", next.toString(), "12d");
  }

  @Test
  @DisplayName("The sketch of HumanDuration prints what kubectl prints")
  void humanDuration() {
    assertThat(KubectlTable.humanDuration(Duration.ofSeconds(-2))).isEqualTo("<invalid>");
    assertThat(KubectlTable.humanDuration(Duration.ofSeconds(-1))).isEqualTo("0s");
    assertThat(KubectlTable.humanDuration(Duration.ofSeconds(40))).isEqualTo("40s");
    assertThat(KubectlTable.humanDuration(Duration.ofSeconds(150))).isEqualTo("2m30s");
    assertThat(KubectlTable.humanDuration(Duration.ofMinutes(75))).isEqualTo("75m");
    assertThat(KubectlTable.humanDuration(Duration.ofMinutes(200))).isEqualTo("3h20m");
    assertThat(KubectlTable.humanDuration(Duration.ofHours(21))).isEqualTo("21h");
    assertThat(KubectlTable.humanDuration(Duration.ofHours(50))).isEqualTo("2d2h");
    assertThat(KubectlTable.humanDuration(Duration.ofDays(12))).isEqualTo("12d");
  }

  private static List<String> cells(String line) {
    return Arrays.asList(CELLS.split(line.strip()));
  }

  private static List<CustomResourceColumnDefinition> columns(Crds.Crd crd) {
    return crd.definition().getSpec().getVersions().get(0).getAdditionalPrinterColumns();
  }

  private List<Documented> documented() throws IOException {
    List<Documented> found = new ArrayList<>();
    for (Path doc : DocsExamplesTest.docs()) {
      Matcher block = CONSOLE.matcher(Files.readString(doc));
      while (block.find()) {
        List<String> lines = block.group(1).lines().toList();
        for (int i = 0; i < lines.size(); i++) {
          if (lines.get(i).startsWith("$ kubectl get ")) {
            int end = i + 1;
            while (end < lines.size() && !lines.get(end).startsWith("$ ")) {
              end++;
            }
            String where = GeneratedFilesTest.ROOT.relativize(doc) + ": " + lines.get(i);
            command(where, lines.get(i), lines.subList(i + 1, end)).ifPresent(found::add);
          }
        }
      }
    }
    return found;
  }

  private Optional<Documented> command(String where, String command, List<String> table) {
    List<String> args = List.of(command.substring("$ kubectl get ".length()).split(" +"));
    String resource = null;
    boolean wide = false;
    boolean allNamespaces = false;
    for (int i = 0; i < args.size(); i++) {
      switch (args.get(i)) {
        case "-o" -> wide = "wide".equals(args.get(++i));
        case "-n", "--namespace", "-l", "--selector" -> i++;
        case "-A", "--all-namespaces" -> allNamespaces = true;
        default -> resource = resource == null ? args.get(i) : resource;
      }
    }
    String named = resource;
    Optional<Crds.Crd> crd =
        crds.all().stream()
            .filter(c -> names(c.definition().getSpec().getNames()).contains(named))
            .findFirst();
    return crd.isEmpty()
        ? Optional.empty()
        : Optional.of(new Documented(where, crd.get(), wide, allNamespaces, table));
  }

  private static List<String> names(CustomResourceDefinitionNames names) {
    List<String> all = new ArrayList<>(names.getShortNames());
    all.add(names.getPlural());
    all.add(names.getSingular());
    return all;
  }
}
