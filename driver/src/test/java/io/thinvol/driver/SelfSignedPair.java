package io.thinvol.driver;

import io.thinvol.driver.host.ProcessCommandRunner;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** A fresh self-signed certificate and key for a TLS test, made by openssl as an admin would. */
public final class SelfSignedPair {

  private SelfSignedPair() {}

  /**
   * Writes a PEM key and a one-day certificate for {@code /CN=commonName}, with {@code extensions}
   * ({@code -addext} values).
   */
  public static void write(Path certificate, Path key, String commonName, String... extensions) {
    List<String> command =
        new ArrayList<>(
            List.of(
                "openssl",
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-days",
                "1",
                "-subj",
                "/CN=" + commonName));
    for (String extension : extensions) {
      command.add("-addext");
      command.add(extension);
    }
    command.addAll(List.of("-keyout", key.toString(), "-out", certificate.toString()));
    new ProcessCommandRunner().run(Duration.ofMinutes(1), command);
  }
}
