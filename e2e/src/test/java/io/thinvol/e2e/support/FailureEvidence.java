package io.thinvol.e2e.support;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a person needs to diagnose a failed step, kept before the teardown deletes it: the logs of
 * every container in the operator's namespace (the operator's and the node pods'), the
 * StorageBackends and VolumeMoves as YAML and every Event, under {@code <reports>/failed/<step>/}.
 * Best effort: collecting never hides the step's own failure.
 */
public final class FailureEvidence {

  private static final Logger log = LoggerFactory.getLogger(FailureEvidence.class);

  /** Enough for a whole run of the operator; a node pod's log is longer and less often needed. */
  private static final int LOG_LINES = 20_000;

  private final KubernetesClient client;
  private final Path folder;

  FailureEvidence(KubernetesClient client, Path reports, String step) {
    this.client = client;
    this.folder = reports.resolve("failed").resolve(fileName(step));
  }

  void collect() {
    try {
      Files.createDirectories(folder);
    } catch (IOException e) {
      log.warn("cannot keep the evidence of a failed step in {}: {}", folder, e.toString());
      return;
    }
    attempt("the pods' logs", this::podLogs);
    attempt(
        "the StorageBackends", () -> resources("storagebackends.yaml", Resources.STORAGE_BACKEND));
    attempt("the VolumeMoves", () -> resources("volumemoves.yaml", Resources.VOLUME_MOVE));
    attempt("the Events", this::events);
    log.info("the evidence of the failed step is in {}", folder);
  }

  private void podLogs() {
    for (Pod pod : client.pods().inNamespace(Names.OPERATOR).list().getItems()) {
      for (Container container : pod.getSpec().getContainers()) {
        String name = pod.getMetadata().getName() + "." + container.getName();
        attempt(
            "the log of " + name,
            () ->
                write(
                    name + ".log",
                    client
                        .pods()
                        .inNamespace(Names.OPERATOR)
                        .withName(pod.getMetadata().getName())
                        .inContainer(container.getName())
                        .tailingLines(LOG_LINES)
                        .getLog()));
      }
    }
  }

  private void resources(String file, ResourceDefinitionContext type) {
    List<GenericKubernetesResource> found =
        Resources.of(client, type).inAnyNamespace().list().getItems();
    StringBuilder yaml = new StringBuilder();
    found.forEach(r -> yaml.append(client.getKubernetesSerialization().asYaml(r)));
    write(file, yaml.toString());
  }

  /** Every namespace's Events in the order they last happened, one per line. */
  private void events() {
    StringBuilder lines = new StringBuilder();
    client.v1().events().inAnyNamespace().list().getItems().stream()
        .sorted(Comparator.comparing(FailureEvidence::lastSeen))
        .forEach(
            e ->
                lines
                    .append(lastSeen(e))
                    .append(' ')
                    .append(e.getType())
                    .append(' ')
                    .append(e.getInvolvedObject().getKind())
                    .append(' ')
                    .append(e.getMetadata().getNamespace())
                    .append('/')
                    .append(e.getInvolvedObject().getName())
                    .append(' ')
                    .append(e.getReason())
                    .append(" x")
                    .append(e.getCount())
                    .append(": ")
                    .append(e.getMessage())
                    .append('\n'));
    write("events.txt", lines.toString());
  }

  private static String lastSeen(Event event) {
    if (event.getLastTimestamp() != null) {
      return event.getLastTimestamp();
    }
    return event.getEventTime() == null ? "" : event.getEventTime().getTime();
  }

  private void write(String file, String text) {
    try {
      Files.writeString(folder.resolve(file), text == null ? "" : text);
    } catch (IOException e) {
      log.warn("cannot write {}: {}", folder.resolve(file), e.toString());
    }
  }

  private static void attempt(String what, Runnable action) {
    try {
      action.run();
    } catch (RuntimeException e) {
      log.warn("cannot collect {} of a failed step: {}", what, e.toString());
    }
  }

  /** A step's display name as a file name: lower case, words joined by dashes. */
  static String fileName(String step) {
    String name = step.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-");
    return name.replaceAll("^-+|-+$", "");
  }
}
