package io.thinvol.driver;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * csi-sanity (kubernetes-csi/csi-test), the field's conformance suite, run against a driver's
 * socket: its summary lines and every row that failed, read from its JUnit report.
 */
public final class CsiSanity {

  /** Where {@code ../shared/kube/build.sh sanity} puts it. */
  public static final String KIT_BINARY = "/var/tmp/thinvol-peers/bin/csi-sanity";

  private static final Duration LIMIT = Duration.ofMinutes(30);

  private final Path binary;

  public CsiSanity(Path binary) {
    this.binary = binary;
  }

  /**
   * The binary named by {@code -Dthinvol.csiSanity}, env {@code THINVOL_CSI_SANITY}, or the kit's.
   */
  public static Path configuredBinary() {
    String configured =
        System.getProperty("thinvol.csiSanity", System.getenv("THINVOL_CSI_SANITY"));
    return Path.of(configured == null || configured.isBlank() ? KIT_BINARY : configured);
  }

  /** One row that failed: its name and what the suite said. */
  public record FailedRow(String name, String message) {}

  /**
   * A run: the suite's summary lines ("Ran 85 of 97 Specs ...", "SUCCESS! -- ...") and failures.
   */
  public record Run(String label, List<String> summary, List<FailedRow> failed) {}

  /**
   * Runs the suite against {@code socket}, with its mount and staging dirs and reports under {@code
   * work}; {@code options} are further {@code --csi.*} flags (access type, parameters).
   */
  public Run run(String label, Path socket, Path work, List<String> options)
      throws IOException, InterruptedException {
    Path dir = Files.createDirectories(work.resolve(label));
    Path report = dir.resolve("junit.xml");
    Path log = dir.resolve("csi-sanity.log");
    List<String> argv =
        new ArrayList<>(
            List.of(
                binary.toString(),
                "--csi.endpoint=unix://" + socket,
                "--csi.mountdir=" + dir.resolve("mount"),
                "--csi.stagingdir=" + dir.resolve("staging"),
                "--ginkgo.no-color",
                "--ginkgo.junit-report=" + report));
    argv.addAll(options);
    Process process =
        new ProcessBuilder(argv).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    if (!process.waitFor(LIMIT.toMinutes(), TimeUnit.MINUTES)) {
      process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      throw new IllegalStateException("csi-sanity did not finish in " + LIMIT + "; see " + log);
    }
    List<String> summary =
        Files.readAllLines(log).stream()
            .map(String::strip)
            .filter(line -> line.startsWith("Ran ") || line.contains(" Passed | "))
            .toList();
    if (!Files.exists(report)) {
      throw new IllegalStateException(
          "csi-sanity wrote no report (exit "
              + process.exitValue()
              + "): "
              + Files.readString(log));
    }
    return new Run(label, summary, failedRows(report));
  }

  private static List<FailedRow> failedRows(Path report) throws IOException {
    Document document;
    try {
      document = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(report.toFile());
    } catch (Exception e) {
      throw new IOException("cannot read csi-sanity's report " + report, e);
    }
    List<FailedRow> failed = new ArrayList<>();
    NodeList cases = document.getElementsByTagName("testcase");
    for (int i = 0; i < cases.getLength(); i++) {
      Element testCase = (Element) cases.item(i);
      for (String kind : List.of("failure", "error")) {
        NodeList problems = testCase.getElementsByTagName(kind);
        if (problems.getLength() > 0) {
          Element problem = (Element) problems.item(0);
          failed.add(
              new FailedRow(
                  testCase.getAttribute("name"),
                  problem.getAttribute("message") + "\n" + problem.getTextContent()));
        }
      }
    }
    return failed;
  }
}
