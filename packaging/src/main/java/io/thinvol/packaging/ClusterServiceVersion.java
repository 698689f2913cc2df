package io.thinvol.packaging;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.operator.model.Images;
import io.thinvol.operator.model.OperatorRbac;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The bundle's ClusterServiceVersion, built from the sources of truth: the version from the POM,
 * the owned CRDs and their descriptions from {@code crds/}, RBAC from {@link OperatorRbac}, related
 * images from the Deployment's {@code RELATED_IMAGE_*} variables, the Deployment from {@link
 * OperatorDeployment}.
 */
public final class ClusterServiceVersion {

  private ClusterServiceVersion() {}

  public static Map<String, Object> of(
      Release release, Crds crds, String almExamples, byte[] icon) {
    Map<String, Object> annotations = new LinkedHashMap<>();
    annotations.put("alm-examples", almExamples);
    annotations.put("capabilities", "Seamless Upgrades");
    annotations.put("categories", "Storage");
    annotations.put("containerImage", release.image());
    annotations.put(
        "description", "Thin, node-local volumes on sparse files, with space reclamation.");
    annotations.put("repository", "https://github.com/thinvol/thinvol");
    annotations.put("support", "thinvol");
    annotations.put("operatorframework.io/suggested-namespace", Release.OPERATOR_NAMESPACE);
    annotations.put(
        "operatorframework.io/suggested-namespace-template",
        Serialization.asJson(
            Ordered.map(
                "apiVersion", "v1",
                "kind", "Namespace",
                "metadata",
                    Ordered.map(
                        "name",
                        Release.OPERATOR_NAMESPACE,
                        "labels",
                        Ordered.map(
                            "pod-security.kubernetes.io/enforce", "privileged",
                            "pod-security.kubernetes.io/audit", "privileged",
                            "pod-security.kubernetes.io/warn", "privileged",
                            "security.openshift.io/scc.podSecurityLabelSync", "false")))));
    annotations.put("features.operators.openshift.io/disconnected", "true");
    annotations.put("features.operators.openshift.io/fips-compliant", "false");
    annotations.put("features.operators.openshift.io/proxy-aware", "false");
    annotations.put("features.operators.openshift.io/tls-profiles", "false");
    annotations.put("features.operators.openshift.io/token-auth-aws", "false");
    annotations.put("features.operators.openshift.io/token-auth-azure", "false");
    annotations.put("features.operators.openshift.io/token-auth-gcp", "false");
    annotations.put("features.operators.openshift.io/cnf", "false");
    annotations.put("features.operators.openshift.io/cni", "false");
    annotations.put("features.operators.openshift.io/csi", "true");

    Map<String, Object> metadata = new LinkedHashMap<>();
    metadata.put("name", release.csvName());
    metadata.put("namespace", "placeholder");
    metadata.put("annotations", annotations);
    metadata.put(
        "labels",
        Ordered.map(
            "operatorframework.io/arch.amd64", "supported",
            "operatorframework.io/os.linux", "supported"));

    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("displayName", "thinvol");
    spec.put("description", DESCRIPTION);
    spec.put("version", release.version());
    spec.put("minKubeVersion", Release.MIN_KUBE_VERSION);
    spec.put("maturity", Release.CHANNEL);
    spec.put(
        "provider", Ordered.map("name", "thinvol", "url", "https://github.com/thinvol/thinvol"));
    spec.put(
        "maintainers",
        List.of(Ordered.map("name", "thinvol maintainers", "email", "maintainers@thinvol.io")));
    spec.put(
        "links",
        List.of(
            Ordered.map("name", "Source", "url", "https://github.com/thinvol/thinvol"),
            Ordered.map(
                "name",
                "Documentation",
                "url",
                "https://github.com/thinvol/thinvol/tree/main/docs")));
    spec.put(
        "keywords",
        List.of("storage", "csi", "local volumes", "thin provisioning", "space reclamation"));
    spec.put(
        "icon",
        List.of(
            Ordered.map(
                "base64data",
                Base64.getEncoder().encodeToString(icon),
                "mediatype",
                "image/svg+xml")));
    spec.put(
        "installModes",
        List.of(
            installMode("OwnNamespace", false),
            installMode("SingleNamespace", false),
            installMode("MultiNamespace", false),
            installMode("AllNamespaces", true)));
    spec.put("customresourcedefinitions", Ordered.map("owned", owned(crds)));
    spec.put("install", install(release));
    spec.put("relatedImages", relatedImages(release));

    Map<String, Object> csv = new LinkedHashMap<>();
    csv.put("apiVersion", "operators.coreos.com/v1alpha1");
    csv.put("kind", "ClusterServiceVersion");
    csv.put("metadata", metadata);
    csv.put("spec", spec);
    return csv;
  }

  static final String DESCRIPTION =
      """
      thinvol gives Kubernetes **thin, node-local volumes**: each volume is a sparse image file on \
      the node that runs the pod, attached through a loop device and formatted ext4 or xfs, or \
      handed to the pod as a block device. A volume costs disk space only for the blocks it holds.

      Apply a `StorageBackend` and the operator deploys the CSI driver on the selected nodes, with \
      its StorageClasses (`WaitForFirstConsumer`, storage capacity tracking), snapshots and \
      expansion. `ReclaimSpaceJob`s, `ReclaimSpaceCronJob`s and the \
      `reclaimspace.thinvol.io/schedule` annotation give the blocks freed inside volumes back to \
      the nodes' disks; the objects are field-compatible with CSI-Addons'.

      `kubectl describe` tells what happened: conditions, the nodes with problems and why, the \
      bytes each reclaim gave back, and Events.
      """;

  private static Map<String, Object> installMode(String type, boolean supported) {
    Map<String, Object> mode = new LinkedHashMap<>();
    mode.put("type", type);
    mode.put("supported", supported);
    return mode;
  }

  private static List<Map<String, Object>> owned(Crds crds) {
    List<Map<String, Object>> owned = new ArrayList<>();
    for (OwnedCrds.Owned o : OwnedCrds.OWNED) {
      Crds.Crd crd = crds.ofKind(o.kind());
      Map<String, Object> entry = new LinkedHashMap<>();
      entry.put("name", crd.definition().getMetadata().getName());
      entry.put("version", crd.version());
      entry.put("kind", o.kind());
      entry.put("displayName", o.displayName());
      entry.put("description", o.description());
      entry.put("resources", o.creates().stream().map(ClusterServiceVersion::resource).toList());
      entry.put("specDescriptors", descriptors(crd, "spec", o.spec()));
      entry.put("statusDescriptors", descriptors(crd, "status", o.status()));
      owned.add(entry);
    }
    return owned;
  }

  private static Map<String, Object> resource(String kind) {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("kind", kind);
    r.put("name", "");
    r.put("version", kind.equals("ReclaimSpaceJob") ? "v1alpha1" : "v1");
    return r;
  }

  private static List<Map<String, Object>> descriptors(
      Crds.Crd crd, String root, List<OwnedCrds.Descriptor> descriptors) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (OwnedCrds.Descriptor d : descriptors) {
      String description =
          crd.at(root + "." + d.path())
              .map(p -> p.getDescription())
              .orElseThrow(
                  () ->
                      new IllegalStateException(
                          crd.kind() + " has no field " + root + "." + d.path()));
      Map<String, Object> entry = new LinkedHashMap<>();
      entry.put("path", d.path());
      entry.put("displayName", d.displayName());
      entry.put("description", description);
      if (d.xDescriptors().length > 0) {
        entry.put("x-descriptors", List.of(d.xDescriptors()));
      }
      out.add(entry);
    }
    return out;
  }

  private static Map<String, Object> install(Release release) {
    Map<String, Object> deployment = new LinkedHashMap<>();
    deployment.put("name", OperatorDeployment.NAME);
    deployment.put("label", OperatorDeployment.LABELS);
    deployment.put("spec", OperatorDeployment.spec(release.image()));
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("clusterPermissions", List.of(permissions(OperatorRbac.clusterRules(true))));
    spec.put("permissions", List.of(permissions(OperatorRbac.namespaceRules())));
    spec.put("deployments", List.of(deployment));
    Map<String, Object> install = new LinkedHashMap<>();
    install.put("strategy", "deployment");
    install.put("spec", spec);
    return install;
  }

  private static Map<String, Object> permissions(List<PolicyRule> rules) {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("serviceAccountName", OperatorRbac.SERVICE_ACCOUNT);
    p.put("rules", rules);
    return p;
  }

  /**
   * The operator's image, then each node image its Deployment sets a {@code RELATED_IMAGE_*}
   * variable to (named after the variable), each image once: what a mirror must copy.
   */
  static List<Map<String, Object>> relatedImages(Release release) {
    Map<String, String> byImage = new LinkedHashMap<>();
    byImage.put(release.image(), "thinvol-operator");
    for (EnvVar variable : OperatorDeployment.relatedImages()) {
      byImage.putIfAbsent(
          variable.getValue(),
          variable
              .getName()
              .substring(Images.VARIABLE_PREFIX.length())
              .toLowerCase(Locale.ROOT)
              .replace('_', '-'));
    }
    List<Map<String, Object>> images = new ArrayList<>();
    byImage.forEach((image, name) -> images.add(Ordered.map("name", name, "image", image)));
    return images;
  }
}
