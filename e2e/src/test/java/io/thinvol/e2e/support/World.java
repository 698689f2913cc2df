package io.thinvol.e2e.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster the suite runs on and what its steps hand on to later ones. One for the whole run:
 * closed (everything removed, the step table printed) after the last test class, also when a step
 * failed.
 */
public final class World implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(World.class);
  private static volatile World current;
  private static volatile String skipped;

  private final E2eSettings settings;
  private final Kube kube;
  private final StepTable steps = new StepTable();
  private final Map<String, String> facts = new ConcurrentHashMap<>();

  private World(E2eSettings settings, Kube kube) {
    this.settings = settings;
    this.kube = kube;
  }

  /** The world of this run, made at the first call; aborts the calling class where none can be. */
  static synchronized void open(ExtensionContext.Store root) {
    if (current == null && skipped == null) {
      E2eSettings settings = E2eSettings.fromEnvironment();
      Optional<String> reason =
          settings.skipReason().or(() -> Kube.unreachable(settings.kubeconfig()));
      if (reason.isPresent()) {
        skipped = reason.get();
        // Printed once, plainly: a build that skips the suite says so and why.
        System.out.println("\n*** thinvol e2e SKIPPED: " + skipped + " ***\n");
      } else {
        current = new World(settings, Kube.connect(settings.kubeconfig(), settings.reports()));
        root.put(World.class, current);
        current.prepare();
      }
    }
    Assumptions.assumeTrue(skipped == null, () -> "thinvol e2e skipped: " + skipped);
  }

  public static World current() {
    return current;
  }

  private void prepare() {
    try {
      Files.createDirectories(settings.reports());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    // A run that was killed leaves its objects; this one starts from a clean cluster.
    new Teardown(this).run();
  }

  public E2eSettings settings() {
    return settings;
  }

  public Kube kube() {
    return kube;
  }

  public StepTable steps() {
    return steps;
  }

  /**
   * The users' pods, on the host's node: the steps check the host's view of their volumes (image
   * files, loop devices, mounts), which a second node would hide.
   */
  public Workloads workloads() {
    return new Workloads(kube.client(), Names.APPS, settings.workloadImage(), settings.hostNode());
  }

  public Applications applications() {
    return new Applications(kube.client(), Names.APPS, settings.workloadImage());
  }

  public Moves moves() {
    return new Moves(kube.client());
  }

  public KitNodes nodes() {
    return new KitNodes(kube.client(), settings);
  }

  /** Remembers what a step established, for the steps that build on it. */
  public void remember(String key, String value) {
    facts.put(key, value);
  }

  /** What an earlier step established; the calling step is skipped when that step failed. */
  public String require(String key) {
    String value = facts.get(key);
    Assumptions.assumeTrue(
        value != null, () -> "needs " + key + " from an earlier step, which did not pass");
    return value;
  }

  /**
   * The node the kit joined beside the host's; the calling step is skipped on a one-node cluster.
   */
  public String requireJoinedNode() {
    Optional<String> node = nodes().joinedNode();
    Assumptions.assumeTrue(
        node.isPresent(),
        "needs a second node: e2e/run-on-kit.sh joins one with the kit's add-node.sh"
            + " (E2E_NODES=1 runs on one node)");
    return node.get();
  }

  public Optional<String> recalled(String key) {
    return Optional.ofNullable(facts.get(key));
  }

  @Override
  public void close() {
    try {
      if (settings.keep()) {
        log.warn("-Dthinvol.e2e.keep=true: everything is left installed; the next run removes it");
      } else {
        new Teardown(this).run();
      }
    } catch (RuntimeException e) {
      log.error("the teardown failed; the cluster may need cleaning by hand", e);
    } finally {
      String table = steps.render();
      System.out.println("\nthinvol e2e steps:\n" + table);
      try {
        Files.writeString(settings.reports().resolve("steps.md"), table);
      } catch (IOException e) {
        log.warn("cannot write the step table: {}", e.toString());
      }
      kube.close();
      current = null;
    }
  }
}
