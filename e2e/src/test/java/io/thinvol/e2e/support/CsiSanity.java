package io.thinvol.e2e.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The CSI conformance suite (kubernetes-csi/csi-test's csi-sanity) against a running driver's
 * socket, with its staging and target paths where the driver's container sees them too.
 */
public final class CsiSanity {

  private static final long MIB = 1L << 20;

  private CsiSanity() {}

  /** How the specs of one run ended. */
  public record Counts(int specs, int passed, int failed, int skipped, List<String> failures) {
    @Override
    public String toString() {
      return passed + " passed, " + failed + " failed, " + skipped + " skipped of " + specs;
    }
  }

  /**
   * Runs csi-sanity for volumes of {@code accessType} (mount or block); {@code work} must be a
   * directory the driver's container shares with the host (under the kubelet's plugins dir).
   */
  public static Counts run(Path binary, Path socket, String accessType, Path work, Path reports) {
    try {
      Files.createDirectories(work);
      Path mutable = work.resolve("mutable-parameters.yaml");
      Files.writeString(mutable, "ioMode: buffered\n");
      Path report = reports.resolve("csi-sanity-" + accessType + ".xml");
      Host.Result result =
          Host.exec(
              Map.of(),
              List.of(
                  binary.toString(),
                  "--csi.endpoint=unix://" + socket,
                  "--csi.stagingdir=" + work.resolve("staging"),
                  "--csi.mountdir=" + work.resolve("target"),
                  "--csi.testvolumeaccesstype=" + accessType,
                  "--csi.testvolumesize=" + 64 * MIB,
                  "--csi.testvolumeexpandsize=" + 128 * MIB,
                  "--csi.testvolumemutableparameters=" + mutable,
                  "--ginkgo.junit-report=" + report,
                  "--ginkgo.no-color"));
      Files.writeString(
          reports.resolve("csi-sanity-" + accessType + ".log"), result.output() + result.error());
      if (!Files.exists(report)) {
        throw new AssertionError(
            "csi-sanity wrote no report (exit " + result.code() + "): " + result.error());
      }
      return counts(report);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Counts counts(Path report) {
    try {
      NodeList cases =
          DocumentBuilderFactory.newInstance()
              .newDocumentBuilder()
              .parse(report.toFile())
              .getElementsByTagName("testcase");
      int passed = 0;
      int skipped = 0;
      List<String> failures = new ArrayList<>();
      for (int i = 0; i < cases.getLength(); i++) {
        Element testCase = (Element) cases.item(i);
        if (testCase.getElementsByTagName("failure").getLength() > 0
            || testCase.getElementsByTagName("error").getLength() > 0) {
          failures.add(testCase.getAttribute("name"));
        } else if (testCase.getElementsByTagName("skipped").getLength() > 0) {
          skipped++;
        } else {
          passed++;
        }
      }
      return new Counts(cases.getLength(), passed, failures.size(), skipped, failures);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (Exception e) {
      throw new AssertionError("cannot read the csi-sanity report " + report, e);
    }
  }
}
