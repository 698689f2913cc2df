package io.thinvol.e2e;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.thinvol.e2e.support.Claims;
import io.thinvol.e2e.support.E2eExtension;
import io.thinvol.e2e.support.Kube;
import io.thinvol.e2e.support.Names;
import io.thinvol.e2e.support.Resources;
import io.thinvol.e2e.support.Waits;
import io.thinvol.e2e.support.Workloads;
import io.thinvol.e2e.support.World;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/** A group of steps of the user's path: ordered, on the one {@link World} of the run. */
@ExtendWith(E2eExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
abstract class E2eSteps {

  /**
   * Events are recorded asynchronously: one sent with a status write can be listed after it. A step
   * that checks the Events of a phase it saw waits this long for the last of them.
   */
  static final Duration EVENT_POSTED = Duration.ofSeconds(30);

  static final long MIB = 1L << 20;

  static World world() {
    return World.current();
  }

  static Kube kube() {
    return world().kube();
  }

  static KubernetesClient client() {
    return kube().client();
  }

  static Workloads pods() {
    return world().workloads();
  }

  static Claims claims() {
    return new Claims(client());
  }

  /** The time since {@code startNanos} ({@link System#nanoTime}), for the step table. */
  static String seconds(long startNanos) {
    return String.format(java.util.Locale.ROOT, "%.1f s", (System.nanoTime() - startNanos) / 1e9);
  }

  /**
   * Removes what a step made, also after it failed: each action runs whatever the others did, and a
   * failure is logged, never thrown over the step's own.
   */
  static void cleanUp(Runnable... actions) {
    for (Runnable action : actions) {
      try {
        action.run();
      } catch (RuntimeException | AssertionError e) {
        org.slf4j.LoggerFactory.getLogger(E2eSteps.class)
            .warn("cleaning up after a step: {}", e.toString());
      }
    }
  }

  static void figure(String text) {
    world().steps().figure(text);
  }

  /** The steps that need the StorageBackend Ready are skipped when it never was. */
  static void requireBackend() {
    world().require("backend.ready");
  }

  static GenericKubernetesResource get(
      ResourceDefinitionContext kind, String namespace, String name) {
    return namespace == null
        ? Resources.of(client(), kind).withName(name).get()
        : Resources.of(client(), kind).inNamespace(namespace).withName(name).get();
  }

  /** Waits for a StorageBackend's condition Ready to be True; it, or its status on a timeout. */
  static GenericKubernetesResource awaitBackendReady(String name, Duration within) {
    return Waits.until(
        "StorageBackend " + name + " to be Ready",
        within,
        () ->
            Optional.ofNullable(get(Resources.STORAGE_BACKEND, null, name))
                .filter(
                    b ->
                        condition(b, "Ready")
                            .map(c -> "True".equals(c.get("status")))
                            .orElse(false)),
        () -> field(get(Resources.STORAGE_BACKEND, null, name), "status").orElse("no status"));
  }

  /** A field of a custom resource by its path ("status", "readyToUse"), empty when unset. */
  static Optional<Object> field(GenericKubernetesResource object, String... path) {
    return Resources.field(object, path);
  }

  /** The status of a condition of a custom resource's status, e.g. Ready → True. */
  @SuppressWarnings("unchecked")
  static Optional<Map<String, Object>> condition(GenericKubernetesResource object, String type) {
    return field(object, "status", "conditions")
        .map(c -> (List<Map<String, Object>>) c)
        .flatMap(list -> list.stream().filter(c -> type.equals(c.get("type"))).findFirst());
  }

  /** Sets (or, with null, removes) an annotation of a claim, as {@code kubectl annotate}. */
  static void annotateClaim(String claim, String key, String value) {
    Map<String, Object> annotations = new java.util.HashMap<>();
    annotations.put(key, value);
    patchClaim(claim, Map.of("metadata", Map.of("annotations", annotations)));
  }

  /** A JSON merge patch of a claim, as {@code kubectl patch --type merge}. */
  static void patchClaim(String claim, Map<String, Object> patch) {
    client()
        .persistentVolumeClaims()
        .inNamespace(Names.APPS)
        .withName(claim)
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            client().getKubernetesSerialization().asJson(patch));
  }

  static Map<String, String> vars(String... pairs) {
    Map<String, String> vars = new java.util.HashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      vars.put(pairs[i], pairs[i + 1]);
    }
    vars.putIfAbsent("namespace", Names.APPS);
    return vars;
  }
}
