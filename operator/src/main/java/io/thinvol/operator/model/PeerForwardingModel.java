package io.thinvol.operator.model;

import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.thinvol.api.v1alpha1.StorageBackend;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * What lets a VolumeAttributesClass change reach every node: the one (leader-elected) csi-resizer
 * calls the driver of its own node, which forwards ControllerModifyVolume of another node's volume
 * to the driver there, over the CSI-Addons TLS port, with the node ServiceAccount's projected token
 * for the addons audience. The peer accepts that account for this one call only. The lookups (list
 * persistentvolumes, list pods) are in the node role already (the provisioner's).
 */
public final class PeerForwardingModel {

  static final String VOLUME = "peer-token";
  static final String TOKEN_DIR = "/var/run/secrets/thinvol/peer";
  static final long TOKEN_SECONDS = 3600;

  private PeerForwardingModel() {}

  /** The driver's flags: its token, where its peers are, whose tokens it accepts from them. */
  static List<String> driverArgs(StorageBackend backend, Settings settings) {
    return List.of(
        "--peer-token-file=" + TOKEN_DIR + "/token",
        "--peer-pod-selector=" + selector(Names.nodePodLabels(backend)),
        "--peer-serviceaccount=" + settings.namespace() + ":" + Names.nodeServiceAccount(backend));
  }

  /** The node ServiceAccount's token for the addons audience, renewed by the kubelet. */
  static Volume tokenVolume(Settings settings) {
    return new VolumeBuilder()
        .withName(VOLUME)
        .withNewProjected()
        // Set, not defaulted by the API server: a diff would loop for ever.
        .withDefaultMode(0400)
        .addNewSource()
        .withNewServiceAccountToken()
        .withAudience(settings.addonsTokenAudience())
        .withExpirationSeconds(TOKEN_SECONDS)
        .withPath("token")
        .endServiceAccountToken()
        .endSource()
        .endProjected()
        .build();
  }

  static VolumeMount tokenMount() {
    return new VolumeMountBuilder()
        .withName(VOLUME)
        .withMountPath(TOKEN_DIR)
        .withReadOnly(true)
        .build();
  }

  private static String selector(Map<String, String> labels) {
    return new TreeMap<>(labels)
        .entrySet().stream()
            .map(e -> e.getKey() + "=" + e.getValue())
            .collect(Collectors.joining(","));
  }
}
