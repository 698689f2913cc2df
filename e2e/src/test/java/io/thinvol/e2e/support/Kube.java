package io.thinvol.e2e.support;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The suite's client of the cluster: objects from YAML templates, Events, describe captures. */
public final class Kube implements AutoCloseable {

  public static final String FIELD_MANAGER = "thinvol-e2e";
  private static final Pattern VARIABLE = Pattern.compile("\\$\\{([a-zA-Z0-9]+)}");
  private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(5);

  private final KubernetesClient client;
  private final Path kubeconfig;
  private final Path reports;

  private Kube(KubernetesClient client, Path kubeconfig, Path reports) {
    this.client = client;
    this.kubeconfig = kubeconfig;
    this.reports = reports;
  }

  public static Kube connect(Path kubeconfig, Path reports) {
    return new Kube(
        new KubernetesClientBuilder().withConfig(config(kubeconfig)).build(), kubeconfig, reports);
  }

  /** Why the cluster cannot be used (unreachable, refused); empty when its API server answers. */
  public static Optional<String> unreachable(Path kubeconfig) {
    Config config = config(kubeconfig);
    config.setConnectionTimeout((int) PROBE_TIMEOUT.toMillis());
    config.setRequestTimeout((int) PROBE_TIMEOUT.toMillis());
    config.setRequestRetryBackoffLimit(0);
    try (KubernetesClient probe = new KubernetesClientBuilder().withConfig(config).build()) {
      probe.getKubernetesVersion();
      return Optional.empty();
    } catch (RuntimeException e) {
      return Optional.of(
          "the cluster of KUBECONFIG="
              + kubeconfig
              + " ("
              + config.getMasterUrl()
              + ") does not answer: "
              + rootCause(e));
    }
  }

  private static String rootCause(Throwable e) {
    Throwable cause = e;
    while (cause.getCause() != null && cause.getCause() != cause) {
      cause = cause.getCause();
    }
    return cause.toString();
  }

  private static Config config(Path kubeconfig) {
    try {
      return Config.fromKubeconfig(Files.readString(kubeconfig));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public KubernetesClient client() {
    return client;
  }

  /**
   * The objects of a YAML template under {@code src/test/resources/e2e/} with its variables set.
   */
  public List<HasMetadata> load(String template, Map<String, String> variables) {
    String text = substitute(resource("e2e/" + template), variables);
    return client.load(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8))).items();
  }

  /** Server-side applies every object of a template, as {@code kubectl apply --server-side}. */
  public List<HasMetadata> apply(String template, Map<String, String> variables) {
    return load(template, variables).stream().map(this::apply).toList();
  }

  public HasMetadata apply(HasMetadata object) {
    return client.resource(object).fieldManager(FIELD_MANAGER).forceConflicts().serverSideApply();
  }

  /** The Events about an object, found as {@code kubectl describe} finds them. */
  public List<Event> events(String kind, String namespace, String name) {
    return client
        .v1()
        .events()
        .inAnyNamespace()
        .withField("involvedObject.kind", kind)
        .withField("involvedObject.name", name)
        .list()
        .getItems()
        .stream()
        .filter(e -> namespace == null || namespace.equals(e.getInvolvedObject().getNamespace()))
        .toList();
  }

  /** Waits for an Event of {@code reason} about the object (Events are recorded asynchronously). */
  public Event awaitEvent(
      String kind, String namespace, String name, String reason, Duration within) {
    return Waits.until(
        "an Event " + reason + " about " + kind + " " + name,
        within,
        () ->
            events(kind, namespace, name).stream()
                .filter(e -> reason.equals(e.getReason()))
                .findFirst());
  }

  /**
   * {@code kubectl describe} of an object, kept in the reports folder for a person to read; empty
   * when kubectl is not installed (the Events checked come from the API either way).
   */
  public Optional<String> describe(String kind, String namespace, String name) {
    List<String> command =
        namespace == null
            ? List.of("kubectl", "describe", kind, name)
            : List.of("kubectl", "describe", "-n", namespace, kind, name);
    try {
      String text = Host.run(Map.of("KUBECONFIG", kubeconfig.toString()), command);
      Path file = reports.resolve("describe").resolve(kind.toLowerCase() + "-" + name + ".txt");
      Files.createDirectories(file.getParent());
      Files.writeString(file, text);
      return Optional.of(text);
    } catch (Host.CommandMissing e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Runs kubectl, as a user would, against the suite's cluster; its output. */
  public String kubectl(String... arguments) {
    List<String> command = new java.util.ArrayList<>();
    command.add("kubectl");
    command.addAll(List.of(arguments));
    return Host.run(Map.of("KUBECONFIG", kubeconfig.toString()), command);
  }

  static String resource(String path) {
    try (InputStream in = Kube.class.getClassLoader().getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalArgumentException("no test resource " + path);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String substitute(String text, Map<String, String> variables) {
    Matcher matcher = VARIABLE.matcher(text);
    StringBuilder out = new StringBuilder();
    while (matcher.find()) {
      String value = variables.get(matcher.group(1));
      if (value == null) {
        throw new IllegalArgumentException("template variable " + matcher.group(1) + " is not set");
      }
      matcher.appendReplacement(out, Matcher.quoteReplacement(value));
    }
    matcher.appendTail(out);
    return out.toString();
  }

  @Override
  public void close() {
    client.close();
  }
}
