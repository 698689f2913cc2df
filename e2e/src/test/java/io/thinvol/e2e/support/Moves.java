package io.thinvol.e2e.support;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The users' VolumeMoves: made as {@code kubectl apply} makes them, watched through their status.
 */
public final class Moves {

  private final KubernetesClient client;

  public Moves(KubernetesClient client) {
    this.client = client;
  }

  /** A move of the claim to {@code targetNode}, or wherever the operator chooses (null). */
  public void create(String name, String claim, String targetNode) {
    Map<String, Object> spec = new HashMap<>();
    spec.put("persistentVolumeClaim", claim);
    if (targetNode != null) {
      spec.put("targetNode", targetNode);
    }
    GenericKubernetesResource move = new GenericKubernetesResource();
    move.setApiVersion("thinvol.io/v1alpha1");
    move.setKind("VolumeMove");
    move.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(Names.APPS).build());
    move.setAdditionalProperty("spec", spec);
    Resources.of(client, Resources.VOLUME_MOVE).inNamespace(Names.APPS).resource(move).create();
  }

  public GenericKubernetesResource get(String name) {
    return Resources.of(client, Resources.VOLUME_MOVE).inNamespace(Names.APPS).withName(name).get();
  }

  /** A field of the move's status, empty when unset. */
  public Optional<Object> status(String name, String field) {
    return Resources.field(get(name), "status", field);
  }

  /** Waits for the move to reach {@code phase}; the move, or its status on a timeout. */
  public GenericKubernetesResource awaitPhase(String name, String phase, Duration within) {
    return Waits.until(
        "VolumeMove " + name + " in phase " + phase,
        within,
        () ->
            Optional.ofNullable(get(name))
                .filter(m -> Resources.field(m, "status", "phase").equals(Optional.of(phase))),
        () -> {
          GenericKubernetesResource move = get(name);
          return move == null
              ? "no such VolumeMove"
              : Resources.field(move, "status").orElse("no status");
        });
  }

  public void delete(String name, Duration within) {
    Resources.of(client, Resources.VOLUME_MOVE).inNamespace(Names.APPS).withName(name).delete();
    Waits.untilTrue("VolumeMove " + name + " to be deleted", within, () -> get(name) == null);
  }

  /** The reasons of the move's Events, in the order they were first recorded. */
  public List<String> reasons(String name) {
    return client
        .v1()
        .events()
        .inNamespace(Names.APPS)
        .withField("involvedObject.kind", "VolumeMove")
        .withField("involvedObject.name", name)
        .list()
        .getItems()
        .stream()
        .sorted(java.util.Comparator.comparing(Moves::firstSeen))
        .map(Event::getReason)
        .toList();
  }

  /**
   * Every Warning Event about the move or about an object it made (their names start with {@code
   * thinvol-move-<first 8 characters of its uid>}), in any namespace: a move that succeeds is
   * quiet.
   */
  public List<String> warnings(String name, String uid) {
    String prefix = "thinvol-move-" + uid.substring(0, 8);
    return client
        .v1()
        .events()
        .inAnyNamespace()
        .withField("type", "Warning")
        .list()
        .getItems()
        .stream()
        .filter(
            e ->
                e.getInvolvedObject().getName() != null
                    && (e.getInvolvedObject().getName().startsWith(prefix)
                        || ("VolumeMove".equals(e.getInvolvedObject().getKind())
                            && name.equals(e.getInvolvedObject().getName()))))
        .map(
            e ->
                e.getInvolvedObject().getKind()
                    + " "
                    + e.getInvolvedObject().getName()
                    + ": "
                    + e.getReason()
                    + " "
                    + e.getMessage())
        .toList();
  }

  private static String firstSeen(Event event) {
    return Optional.ofNullable(event.getFirstTimestamp())
        .or(() -> Optional.ofNullable(event.getEventTime()).map(t -> t.getTime()))
        .orElse("");
  }
}
