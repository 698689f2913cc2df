package io.thinvol.testing.real;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.testing.ApiRequest;
import io.thinvol.testing.StrictApiServer.Decision;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The real server's record of requests: its audit log (every resource request at level Metadata),
 * read as the strict server's {@link Decision}s: who (the impersonated ServiceAccount), what (the
 * request as the authorizer saw it) and the answer's code. The tests' own requests as the admin are
 * left out, as the strict server leaves them out.
 */
public final class AuditLog {

  /** Every resource request, once (the stage its answer is known), without bodies. */
  static final String POLICY =
      """
      apiVersion: audit.k8s.io/v1
      kind: Policy
      omitStages: [RequestReceived]
      rules:
      - level: None
        nonResourceURLs: ["*"]
      - level: Metadata
      """;

  private static final String FENCE = "thinvol-audit-fence-";
  private static final AtomicLong FENCES = new AtomicLong();
  private static final long FENCE_PATIENCE_NANOS = 30_000_000_000L;

  private final Path file;
  private final List<Decision> decisions = new ArrayList<>();
  private final Set<String> seen = new HashSet<>();
  private long offset;
  private String partial = "";

  AuditLog(Path file) {
    this.file = file;
  }

  Path file() {
    return file;
  }

  /** How many decisions were recorded so far (a test's first is the next one). */
  public synchronized int mark(KubernetesClient admin) {
    return readUpToNow(admin).size();
  }

  /** The decisions recorded from {@code mark} on, up to now. */
  public synchronized List<Decision> since(KubernetesClient admin, int mark) {
    List<Decision> all = readUpToNow(admin);
    return List.copyOf(all.subList(Math.min(mark, all.size()), all.size()));
  }

  /**
   * Reads the log up to a request made now (a fence): the server wrote every request answered
   * before it by then.
   */
  private List<Decision> readUpToNow(KubernetesClient admin) {
    String fence = FENCE + FENCES.incrementAndGet();
    try {
      admin.configMaps().inNamespace("default").withName(fence).get();
    } catch (KubernetesClientException e) {
      throw new IllegalStateException("the audit fence request failed", e);
    }
    long deadline = System.nanoTime() + FENCE_PATIENCE_NANOS;
    while (!readNew(fence)) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the audit log " + file + " never showed " + fence);
      }
      Pause.of(Duration.ofMillis(5), "reading the audit log");
    }
    return decisions;
  }

  /** Reads what was appended; whether the fence was among it. */
  private boolean readNew(String fence) {
    if (!Files.exists(file)) {
      return false;
    }
    boolean fenced = false;
    try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
      long length = in.length();
      if (length <= offset) {
        return false;
      }
      byte[] bytes = new byte[(int) (length - offset)];
      in.seek(offset);
      in.readFully(bytes);
      offset = length;
      String text = partial + new String(bytes, StandardCharsets.UTF_8);
      int end = text.lastIndexOf('\n');
      partial = text.substring(end + 1);
      for (String line : text.substring(0, Math.max(end, 0)).split("\n")) {
        if (!line.isBlank()) {
          fenced |= take(Serialization.unmarshal(line, JsonNode.class), fence);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return fenced;
  }

  /** Records an event of a ServiceAccount's request; whether it is the fence. */
  private boolean take(JsonNode event, String fence) {
    JsonNode object = event.path("objectRef");
    if (fence.equals(object.path("name").asText())) {
      return true;
    }
    String user = event.at("/impersonatedUser/username").asText("");
    if (user.isEmpty() || object.isMissingNode() || !seen.add(event.path("auditID").asText())) {
      return false; // the admin's own request, or a watch's second stage
    }
    String subresource = object.path("subresource").asText("");
    ApiRequest request =
        new ApiRequest(
            event.path("verb").asText(),
            object.path("apiGroup").asText(""),
            object.path("resource").asText() + (subresource.isEmpty() ? "" : "/" + subresource),
            object.path("namespace").asText(null),
            object.path("name").asText(null));
    JsonNode status = event.path("responseStatus");
    decisions.add(
        new Decision(
            user, request, status.path("code").asInt(0), status.path("message").asText(null)));
    return false;
  }
}
