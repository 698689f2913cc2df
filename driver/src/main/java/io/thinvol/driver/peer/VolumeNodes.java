package io.thinvol.driver.peer;

import io.grpc.Status;
import io.thinvol.driver.config.DriverConfig;
import io.thinvol.driver.core.CsiException;
import io.thinvol.driver.kube.ApiServer;
import io.thinvol.driver.kube.JsonTree;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Which node holds a volume, from the node affinity ({@value DriverConfig#TOPOLOGY_KEY}) of the
 * PersistentVolume whose {@code spec.csi.volumeHandle} is its id. PersistentVolumes cannot be
 * selected by handle (their only field selector is the name) and the CSI call names no PV, so the
 * look-up pages through them ({@value #PAGE} at a time, only the match kept) — a rare call, against
 * an informer that would hold every PV in every driver's memory for ever. A volume never moves, so
 * the answer is remembered for the volume's life (bounded; a deleted volume's entry ages out).
 */
public final class VolumeNodes {

  static final int PAGE = 250;
  private static final int REMEMBERED = 1024;

  private final Supplier<ApiServer> api;
  private final String driverName;
  private final Map<String, String> known =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
          return size() > REMEMBERED;
        }
      };

  public VolumeNodes(Supplier<ApiServer> api, String driverName) {
    this.api = api;
    this.driverName = driverName;
  }

  /**
   * The node holding {@code volumeId}: NOT_FOUND when no PersistentVolume of this driver has that
   * handle or it names no node, UNAVAILABLE when the API server cannot be asked.
   */
  public String nodeOf(String volumeId) {
    synchronized (known) {
      String node = known.get(volumeId);
      if (node != null) {
        return node;
      }
    }
    JsonTree volume = find(volumeId);
    String node =
        nodeAffinity(volume)
            .orElseThrow(
                () ->
                    CsiException.notFound(
                        "PersistentVolume %s of volume %s names no node in its node affinity (%s)",
                        volume.path("metadata").path("name").asText(),
                        volumeId,
                        DriverConfig.TOPOLOGY_KEY));
    synchronized (known) {
      known.put(volumeId, node);
    }
    return node;
  }

  /** Forgets where {@code volumeId} was (it was not there any more: deleted). */
  public void forget(String volumeId) {
    synchronized (known) {
      known.remove(volumeId);
    }
  }

  private JsonTree find(String volumeId) {
    String next = "";
    do {
      JsonTree page = list(next);
      for (JsonTree volume : page.path("items")) {
        JsonTree csi = volume.path("spec").path("csi");
        if (driverName.equals(csi.path("driver").asText())
            && volumeId.equals(csi.path("volumeHandle").asText())) {
          return volume;
        }
      }
      next = page.path("metadata").path("continue").asText("");
    } while (!next.isEmpty());
    throw CsiException.notFound(
        "volume %s does not exist: it is not on this node and no PersistentVolume of driver %s"
            + " has it as volumeHandle",
        volumeId, driverName);
  }

  private JsonTree list(String continueToken) {
    String path = "/api/v1/persistentvolumes?limit=" + PAGE;
    if (!continueToken.isEmpty()) {
      path += "&continue=" + URLEncoder.encode(continueToken, StandardCharsets.UTF_8);
    }
    try {
      return api.get().get(path);
    } catch (IllegalStateException e) {
      throw new CsiException(
          Status.Code.UNAVAILABLE,
          "cannot look up which node holds the volume (list persistentvolumes): " + e.getMessage());
    }
  }

  private static Optional<String> nodeAffinity(JsonTree volume) {
    for (JsonTree term :
        volume.path("spec").path("nodeAffinity").path("required").path("nodeSelectorTerms")) {
      for (JsonTree expression : term.path("matchExpressions")) {
        if (DriverConfig.TOPOLOGY_KEY.equals(expression.path("key").asText())
            && "In".equals(expression.path("operator").asText())
            && expression.path("values").size() > 0) {
          return Optional.of(expression.path("values").get(0).asText());
        }
      }
    }
    return Optional.empty();
  }
}
