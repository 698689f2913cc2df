package io.thinvol.testing.real;

import static java.util.concurrent.TimeUnit.SECONDS;

import io.fabric8.kubernetes.api.model.APIGroup;
import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The objects of a cluster as the fixture left it ready for a test, and the way back to it: a
 * shared real API server serves one test after another, each finding the cluster as the first did.
 * Without a controller manager nothing deletes in the background (no garbage collector, no
 * namespace controller, no PVC protection controller), so the reset does it all: every object made
 * since the baseline is deleted at once, its finalizers removed first (the operator that would
 * remove them is stopped); custom resource definitions are deleted and awaited (the API server's
 * own finalizer removes their objects); namespaces are finalized as the namespace controller would
 * once they are empty. The fixture's own objects a test changed (its namespace, ServiceAccount,
 * roles, CRDs) are written back.
 *
 * <p>The API server's own objects (in {@code kube-system}, {@code kube-public}, {@code
 * kube-node-lease}, and the flow-control and aggregation APIs) are never touched.
 */
public final class ClusterBaseline {

  private static final Set<String> SYSTEM_NAMESPACES =
      Set.of("kube-system", "kube-public", "kube-node-lease");
  private static final Set<String> SYSTEM_GROUPS =
      Set.of(
          "flowcontrol.apiserver.k8s.io",
          "apiregistration.k8s.io",
          "internal.apiserver.k8s.io",
          // the same Events as core v1's
          "events.k8s.io");
  private static final Set<String> RESTORED_KINDS =
      Set.of(
          "Namespace",
          "ServiceAccount",
          "ClusterRole",
          "ClusterRoleBinding",
          "Role",
          "RoleBinding",
          "CustomResourceDefinition");
  private static final String CRD_GROUP = "apiextensions.k8s.io";
  private static final Duration SETTLE = Duration.ofSeconds(60);

  /** The baseline's objects by uid. */
  private final Map<String, GenericKubernetesResource> objects;

  private ClusterBaseline(Map<String, GenericKubernetesResource> objects) {
    this.objects = objects;
  }

  /** Records every object the cluster holds now. */
  public static ClusterBaseline take(KubernetesClient admin) {
    Map<String, GenericKubernetesResource> objects = new HashMap<>();
    for (ResourceDefinitionContext resource : resources(admin)) {
      for (GenericKubernetesResource object : list(admin, resource)) {
        objects.put(object.getMetadata().getUid(), object);
      }
    }
    return new ClusterBaseline(objects);
  }

  /** Brings the cluster back to the baseline; fails if something cannot be removed. */
  public void restore(KubernetesClient admin) {
    long deadline = System.nanoTime() + SETTLE.toNanos();
    while (true) {
      List<GenericKubernetesResource> left = newObjects(admin);
      if (left.isEmpty()) {
        break;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "the cluster could not be reset for the next test; still there: "
                + left.stream().map(ClusterBaseline::describe).toList());
      }
      for (GenericKubernetesResource object : left) {
        remove(admin, object);
      }
      Pause.of(Duration.ofMillis(100), "resetting the cluster");
    }
    writeBackChanged(admin);
  }

  private List<GenericKubernetesResource> newObjects(KubernetesClient admin) {
    List<GenericKubernetesResource> found = new ArrayList<>();
    List<GenericKubernetesResource> definitions = new ArrayList<>();
    List<GenericKubernetesResource> namespaces = new ArrayList<>();
    for (ResourceDefinitionContext resource : resources(admin)) {
      for (GenericKubernetesResource object : list(admin, resource)) {
        if (objects.containsKey(object.getMetadata().getUid())) {
          continue;
        }
        if (object.getKind().equals("Namespace")) {
          namespaces.add(object);
        } else if (object.getKind().equals("CustomResourceDefinition")) {
          definitions.add(object);
        } else {
          found.add(object);
        }
      }
    }
    // Objects first, then the definitions of custom ones, then the (then empty) namespaces.
    found.addAll(definitions);
    found.addAll(namespaces);
    return found;
  }

  private static void remove(KubernetesClient admin, GenericKubernetesResource object) {
    var resource = admin.resource(object);
    try {
      boolean definition = object.getKind().equals("CustomResourceDefinition");
      if (!definition && !object.getMetadata().getFinalizers().isEmpty()) {
        resource.patch(
            PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\":{\"finalizers\":null}}");
      }
      // A pod deleted gracefully waits for a kubelet to confirm; there is none, so it is deleted
      // again with no grace, as `kubectl delete --force` does.
      if (object.getMetadata().getDeletionTimestamp() == null || object.getKind().equals("Pod")) {
        resource.withGracePeriod(0).delete();
      }
      if (object.getKind().equals("Namespace")) {
        finalizeNamespace(admin, object.getMetadata().getName());
      }
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404 && e.getCode() != 409) {
        throw e;
      }
    }
  }

  /** What the namespace controller does once a namespace is empty. */
  private static void finalizeNamespace(KubernetesClient admin, String name) {
    GenericKubernetesResource namespace =
        admin.genericKubernetesResources("v1", "Namespace").withName(name).get();
    if (namespace == null) {
      return;
    }
    Map<String, Object> spec = new HashMap<>();
    spec.put("finalizers", List.of());
    namespace.setAdditionalProperty("spec", spec);
    admin.raw("/api/v1/namespaces/" + name + "/finalize", "PUT", namespace);
  }

  /**
   * Writes back the fixture's objects as they were, where a test changed them, and makes them again
   * where it deleted them (a CRD a test runs without).
   */
  private void writeBackChanged(KubernetesClient admin) {
    for (GenericKubernetesResource saved : List.copyOf(objects.values())) {
      if (!RESTORED_KINDS.contains(saved.getKind())) {
        continue;
      }
      GenericKubernetesResource now = admin.resource(saved).get();
      if (now == null) {
        makeAgain(admin, saved);
        continue;
      }
      String version = saved.getMetadata().getResourceVersion();
      if (now.getMetadata().getResourceVersion().equals(version)) {
        continue;
      }
      GenericKubernetesResource back = Serialization.clone(saved);
      back.getMetadata().setResourceVersion(now.getMetadata().getResourceVersion());
      back.getMetadata().setManagedFields(null);
      GenericKubernetesResource written = admin.resource(back).update();
      saved.getMetadata().setResourceVersion(written.getMetadata().getResourceVersion());
    }
  }

  /** Creates a deleted object of the baseline again; a CRD is awaited until it is served. */
  private void makeAgain(KubernetesClient admin, GenericKubernetesResource saved) {
    GenericKubernetesResource again = Serialization.clone(saved);
    again.getMetadata().setUid(null);
    again.getMetadata().setResourceVersion(null);
    again.getMetadata().setCreationTimestamp(null);
    again.getMetadata().setManagedFields(null);
    again.getAdditionalProperties().remove("status");
    GenericKubernetesResource made = admin.resource(again).create();
    if (saved.getKind().equals("CustomResourceDefinition")) {
      made =
          admin
              .resource(made)
              .waitUntilCondition(ClusterBaseline::established, SETTLE.toSeconds(), SECONDS);
    }
    objects.remove(saved.getMetadata().getUid());
    objects.put(made.getMetadata().getUid(), made);
  }

  private static boolean established(GenericKubernetesResource crd) {
    Object status = crd == null ? null : crd.getAdditionalProperties().get("status");
    return status instanceof Map<?, ?> fields
        && fields.get("conditions") instanceof List<?> conditions
        && conditions.stream()
            .anyMatch(
                c ->
                    c instanceof Map<?, ?> condition
                        && "Established".equals(condition.get("type"))
                        && "True".equals(condition.get("status")));
  }

  /** Every resource to look at: the preferred version of each group, subresources left out. */
  private static List<ResourceDefinitionContext> resources(KubernetesClient admin) {
    List<ResourceDefinitionContext> resources = new ArrayList<>();
    addServed(admin, "v1", resources);
    for (APIGroup group : admin.getApiGroups().getGroups()) {
      if (!SYSTEM_GROUPS.contains(group.getName())) {
        addServed(admin, group.getPreferredVersion().getGroupVersion(), resources);
      }
    }
    return resources;
  }

  private static void addServed(
      KubernetesClient admin, String groupVersion, List<ResourceDefinitionContext> resources) {
    var served = admin.getApiResources(groupVersion);
    if (served == null) {
      return; // listed a moment ago, gone now (a CRD being deleted)
    }
    for (APIResource resource : served.getResources()) {
      if (!resource.getName().contains("/")
          && resource.getVerbs().containsAll(List.of("list", "delete"))) {
        resources.add(ResourceDefinitionContext.fromApiResource(groupVersion, resource));
      }
    }
  }

  private static List<GenericKubernetesResource> list(
      KubernetesClient admin, ResourceDefinitionContext resource) {
    try {
      return admin.genericKubernetesResources(resource).inAnyNamespace().list().getItems().stream()
          .filter(
              o ->
                  o.getMetadata().getNamespace() == null
                      || !SYSTEM_NAMESPACES.contains(o.getMetadata().getNamespace()))
          .filter(o -> !(o.getKind().equals("Namespace") && isSystemNamespace(o)))
          .toList();
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        return List.of(); // a custom resource whose definition went away meanwhile
      }
      throw e;
    }
  }

  private static boolean isSystemNamespace(GenericKubernetesResource namespace) {
    return SYSTEM_NAMESPACES.contains(namespace.getMetadata().getName());
  }

  private static String describe(GenericKubernetesResource object) {
    return object.getKind()
        + " "
        + (object.getMetadata().getNamespace() == null
            ? ""
            : object.getMetadata().getNamespace() + "/")
        + object.getMetadata().getName();
  }
}
