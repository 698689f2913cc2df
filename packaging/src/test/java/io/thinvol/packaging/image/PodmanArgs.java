package io.thinvol.packaging.image;

import io.fabric8.kubernetes.api.model.Capabilities;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code podman run} arguments that start one container of a rendered pod spec the way the
 * kubelet would: its args with {@code $(VAR)} expanded, its env with the downward API's values, its
 * security context (privileged, user, read-only root, no privilege escalation, dropped
 * capabilities) and its volume mounts with their propagation. Host paths and secrets are mapped to
 * directories the caller chooses; an emptyDir is a fresh tmpfs.
 */
final class PodmanArgs {

  private static final Pattern VARIABLE = Pattern.compile("\\$\\(([A-Za-z_][A-Za-z0-9_]*)\\)");

  private PodmanArgs() {}

  /**
   * @param downwardApi the value of each fieldRef path the container's env uses
   * @param volumeSource the host directory that backs a hostPath, secret or projected volume
   */
  static List<String> of(
      PodSpec pod,
      Container container,
      String image,
      Map<String, String> downwardApi,
      Function<Volume, Path> volumeSource)
      throws IOException {
    List<String> args = new ArrayList<>();
    Map<String, String> env = env(container, downwardApi);
    env.forEach((name, value) -> args.add("--env=" + name + "=" + value));
    args.addAll(securityContext(container.getSecurityContext()));
    for (VolumeMount mount : container.getVolumeMounts()) {
      Volume volume =
          pod.getVolumes().stream()
              .filter(v -> v.getName().equals(mount.getName()))
              .findFirst()
              .orElseThrow();
      args.add(mount(volume, mount, volumeSource));
    }
    args.add(image);
    for (String arg : container.getArgs()) {
      args.add(expand(arg, env));
    }
    return args;
  }

  private static Map<String, String> env(Container container, Map<String, String> downwardApi) {
    Map<String, String> env = new LinkedHashMap<>();
    for (EnvVar variable : container.getEnv()) {
      if (variable.getValueFrom() != null) {
        String path = variable.getValueFrom().getFieldRef().getFieldPath();
        String value = downwardApi.get(path);
        if (value == null) {
          throw new IllegalArgumentException("no downward API value for " + path);
        }
        env.put(variable.getName(), value);
      } else {
        env.put(variable.getName(), variable.getValue());
      }
    }
    return env;
  }

  private static List<String> securityContext(SecurityContext context) {
    List<String> args = new ArrayList<>();
    if (context == null) {
      return args;
    }
    if (Boolean.TRUE.equals(context.getPrivileged())) {
      args.add("--privileged");
    }
    if (context.getRunAsUser() != null) {
      args.add("--user=" + context.getRunAsUser());
    }
    if (Boolean.TRUE.equals(context.getReadOnlyRootFilesystem())) {
      // Only the mounts the pod declares are writable, as in a pod (no extra tmpfs).
      args.add("--read-only");
      args.add("--read-only-tmpfs=false");
    }
    if (Boolean.FALSE.equals(context.getAllowPrivilegeEscalation())) {
      args.add("--security-opt=no-new-privileges");
    }
    Capabilities capabilities = context.getCapabilities();
    if (capabilities != null) {
      capabilities.getDrop().forEach(c -> args.add("--cap-drop=" + c));
      capabilities.getAdd().forEach(c -> args.add("--cap-add=" + c));
    }
    return args;
  }

  private static String mount(Volume volume, VolumeMount mount, Function<Volume, Path> source)
      throws IOException {
    if (volume.getEmptyDir() != null) {
      return "--tmpfs=" + mount.getMountPath() + ":rw,exec";
    }
    if (volume.getHostPath() == null
        && volume.getSecret() == null
        && volume.getProjected() == null) {
      throw new IllegalArgumentException("no mapping for volume " + volume);
    }
    Path host = source.apply(volume);
    if (volume.getHostPath() != null) {
      Files.createDirectories(host);
    }
    List<String> options = new ArrayList<>();
    options.add(Boolean.TRUE.equals(mount.getReadOnly()) ? "ro" : "rw");
    String propagation = mount.getMountPropagation();
    if ("Bidirectional".equals(propagation)) {
      options.add("rshared");
    } else if ("HostToContainer".equals(propagation)) {
      options.add("rslave");
    }
    return "--volume=" + host + ":" + mount.getMountPath() + ":" + String.join(",", options);
  }

  /** The kubelet's expansion of {@code $(VAR)} in args from the container's env. */
  static String expand(String arg, Map<String, String> env) {
    Matcher matcher = VARIABLE.matcher(arg);
    StringBuilder out = new StringBuilder();
    while (matcher.find()) {
      String value = env.getOrDefault(matcher.group(1), matcher.group());
      matcher.appendReplacement(out, Matcher.quoteReplacement(value));
    }
    return matcher.appendTail(out).toString();
  }
}
