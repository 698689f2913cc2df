package io.thinvol.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectRulesReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectRulesReviewSpecBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The strict server refuses what a real API server refuses, with the real codes and messages. */
class StrictApiServerTest {

  static final String USER = Rbac.serviceAccount("ops", "robot");

  /**
   * The robot: storage backends cluster-wide, secrets and events in "ops" only, the finalizers of
   * StorageBackends (which a Role cannot grant: they are cluster-scoped) and ReclaimSpaceJobs in
   * "apps".
   */
  static final Rbac RBAC =
      new Rbac(
          List.of(
              new Rbac.Grant(
                  USER,
                  null,
                  List.of(
                      new PolicyRuleBuilder()
                          .withApiGroups("thinvol.io")
                          .withResources("storagebackends", "reclaimspacejobs")
                          .withVerbs("get", "list", "create", "update", "patch")
                          .build(),
                      new PolicyRuleBuilder()
                          .withApiGroups("")
                          .withResources("events")
                          .withVerbs("create", "list")
                          .build(),
                      new PolicyRuleBuilder()
                          .withApiGroups("")
                          .withResources("configmaps")
                          .withResourceNames("allowed")
                          .withVerbs("get")
                          .build())),
              new Rbac.Grant(
                  USER,
                  "ops",
                  List.of(
                      new PolicyRuleBuilder()
                          .withApiGroups("")
                          .withResources("secrets")
                          .withVerbs("get", "create")
                          .build())),
              new Rbac.Grant(
                  USER,
                  "apps",
                  List.of(
                      new PolicyRuleBuilder()
                          .withApiGroups("thinvol.io")
                          .withResources(
                              "storagebackends/finalizers", "reclaimspacejobs/finalizers")
                          .withVerbs("update")
                          .build()))));

  StrictCluster cluster;
  KubernetesClient robot;

  @BeforeEach
  void start() {
    cluster = StrictCluster.start(RBAC);
    cluster.installCrds();
    cluster.namespace("ops");
    cluster.namespace("apps");
    robot = cluster.as(USER, "ops");
  }

  @AfterEach
  void stop() {
    robot.close();
    cluster.close();
  }

  private static GenericKubernetesResource backend(String yaml) {
    return Serialization.unmarshal(
        "apiVersion: thinvol.io/v1alpha1\nkind: StorageBackend\n" + yaml,
        GenericKubernetesResource.class);
  }

  private static void refused(Runnable request, int code, String message) {
    assertThatThrownBy(request::run)
        .isInstanceOfSatisfying(
            KubernetesClientException.class,
            e -> {
              assertThat(e.getCode()).isEqualTo(code);
              assertThat(e.getStatus().getMessage()).isEqualTo(message);
            });
  }

  @Test
  void rbacAsTheRealAuthorizer() {
    robot.secrets().inNamespace("ops").resource(secret("ops", "s")).create();
    refused(
        () -> robot.secrets().inNamespace("apps").resource(secret("apps", "s")).create(),
        403,
        "secrets is forbidden: User \"system:serviceaccount:ops:robot\" cannot create resource"
            + " \"secrets\" in API group \"\" in the namespace \"apps\"");
    refused(
        () -> robot.secrets().inNamespace("ops").withName("s").delete(),
        403,
        "secrets \"s\" is forbidden: User \"system:serviceaccount:ops:robot\" cannot delete"
            + " resource \"secrets\" in API group \"\" in the namespace \"ops\"");
    refused(
        () -> robot.secrets().inNamespace("ops").list(),
        403,
        "secrets is forbidden: User \"system:serviceaccount:ops:robot\" cannot list resource"
            + " \"secrets\" in API group \"\" in the namespace \"ops\"");
    cluster.admin().resource(backend("metadata:\n  name: b\n")).create();
    refused(
        () ->
            robot
                .genericKubernetesResources("thinvol.io/v1alpha1", "StorageBackend")
                .withName("b")
                .editStatus(b -> b),
        403,
        "storagebackends.thinvol.io \"b\" is forbidden: User \"system:serviceaccount:ops:robot\""
            + " cannot patch resource \"storagebackends/status\" in API group \"thinvol.io\" at"
            + " the cluster scope");
    assertThat(robot.configMaps().inNamespace("apps").withName("allowed").get()).isNull();
    refused(
        () -> robot.configMaps().inNamespace("apps").withName("other").get(),
        403,
        "configmaps \"other\" is forbidden: User \"system:serviceaccount:ops:robot\" cannot get"
            + " resource \"configmaps\" in API group \"\" in the namespace \"apps\"");
    assertThat(cluster.strict().orElseThrow().decisions())
        .extracting(StrictApiServer.Decision::code)
        .containsExactly(201, 403, 403, 403, 200, 403, 404, 403);
  }

  @Test
  void selfSubjectRulesReviewTellsTheRulesOfANamespace() {
    SelfSubjectRulesReview review = new SelfSubjectRulesReview();
    review.setSpec(new SelfSubjectRulesReviewSpecBuilder().withNamespace("ops").build());
    assertThat(resources(robot.resource(review).create())).contains("secrets", "storagebackends");
    review.setSpec(new SelfSubjectRulesReviewSpecBuilder().withNamespace("apps").build());
    assertThat(resources(robot.resource(review).create())).doesNotContain("secrets");
  }

  private static List<String> resources(SelfSubjectRulesReview review) {
    return review.getStatus().getResourceRules().stream()
        .flatMap(r -> r.getResources().stream())
        .toList();
  }

  @Test
  void eventsOfClusterScopedObjectsLiveInDefault() {
    GenericKubernetesResource created =
        cluster.admin().resource(backend("metadata:\n  name: b\n")).create();
    refused(
        () -> robot.v1().events().inNamespace("ops").resource(event("ops", created)).create(),
        422,
        "Event \"b.1\" is invalid: involvedObject.namespace: Invalid value: \"\": does not match"
            + " event.namespace");
    robot.v1().events().inNamespace("default").resource(event("default", created)).create();
    assertThat(DescribedEvents.reasons(robot, created)).containsExactly("Ready");
    assertThat(
            DescribedEvents.reasons(robot, "StorageBackend", null, "b", "another-incarnation-of-b"))
        .isEmpty();
  }

  @Test
  void blockOwnerDeletionNeedsUpdateOnTheOwnersFinalizers() {
    GenericKubernetesResource owner =
        cluster.admin().resource(backend("metadata:\n  name: owner\n")).create();
    GenericKubernetesResource job = ownedJob("j", "StorageBackend", owner, true);
    // The Role in "apps" names storagebackends/finalizers, but a cluster-scoped owner is checked
    // at the cluster scope, as the real plugin does.
    refused(
        () -> robot.resource(job).create(),
        403,
        "reclaimspacejobs.thinvol.io \"j\" is forbidden: cannot set blockOwnerDeletion if an"
            + " ownerReference refers to a resource you can't set finalizers on: , <nil>");
    job.getMetadata().getOwnerReferences().get(0).setBlockOwnerDeletion(false);
    assertThat(robot.resource(job).create()).isNotNull();

    // A namespaced owner is checked in the dependent's namespace, where the Role grants it.
    GenericKubernetesResource parent =
        cluster.admin().resource(ownedJob("parent", null, null, false)).create();
    assertThat(robot.resource(ownedJob("child", "ReclaimSpaceJob", parent, true)).create())
        .isNotNull();
  }

  @Test
  void changingOwnerReferencesNeedsDeleteOnTheObject() {
    GenericKubernetesResource owner =
        cluster.admin().resource(backend("metadata:\n  name: owner\n")).create();
    robot.resource(ownedJob("j", null, null, false)).create();
    GenericKubernetesResource adopted = ownedJob("j", "StorageBackend", owner, false);
    refused(
        () -> robot.resource(adopted).update(),
        403,
        "reclaimspacejobs.thinvol.io \"j\" is forbidden: cannot set an ownerRef on a resource you"
            + " can't delete: , <nil>");
    // The robot may create what it cannot delete: on create the plugin asks for nothing.
    assertThat(robot.resource(ownedJob("k", "StorageBackend", owner, false)).create()).isNotNull();
  }

  /** A ReclaimSpaceJob in "apps", owned by {@code owner} of {@code kind} (null: not owned). */
  private static GenericKubernetesResource ownedJob(
      String name, String kind, GenericKubernetesResource owner, boolean block) {
    String owners =
        owner == null
            ? ""
            : "  ownerReferences:\n  - apiVersion: thinvol.io/v1alpha1\n    kind: "
                + kind
                + "\n    name: "
                + owner.getMetadata().getName()
                + "\n    uid: "
                + owner.getMetadata().getUid()
                + "\n    blockOwnerDeletion: "
                + block
                + "\n";
    return Serialization.unmarshal(
        "apiVersion: thinvol.io/v1alpha1\nkind: ReclaimSpaceJob\nmetadata:\n  name: "
            + name
            + "\n  namespace: apps\n"
            + owners
            + "spec:\n  target:\n    persistentVolumeClaim: data\n",
        GenericKubernetesResource.class);
  }

  @Test
  void customResourcesGetDefaultsSchemaAndCelRules() {
    GenericKubernetesResource job =
        cluster
            .admin()
            .resource(
                Serialization.unmarshal(
                    "apiVersion: thinvol.io/v1alpha1\nkind: ReclaimSpaceJob\nmetadata:\n"
                        + "  name: j\n  namespace: apps\nspec:\n  target:\n"
                        + "    persistentVolumeClaim: data\n  unknownField: 1\n",
                    GenericKubernetesResource.class))
            .create();
    GenericKubernetesResource stored = cluster.admin().resource(job).get();
    assertThat(Serialization.asJson(stored.get("spec")))
        .contains("\"backOffLimit\":6", "\"mode\":\"Auto\"")
        .doesNotContain("unknownField");

    refused(
        () ->
            cluster
                .admin()
                .resource(
                    backend(
                        "metadata:\n  name: dup\nspec:\n  storageClasses:\n  - name: a\n"
                            + "  - name: a\n"))
                .create(),
        422,
        "StorageBackend.thinvol.io \"dup\" is invalid: spec.storageClasses: Invalid value:"
            + " \"array\": StorageClass names must be unique");

    cluster
        .admin()
        .resource(backend("metadata:\n  name: data\nspec:\n  sparseFile:\n    dataDir: /a\n"))
        .create();
    refused(
        () ->
            robot
                .genericKubernetesResources("thinvol.io/v1alpha1", "StorageBackend")
                .withName("data")
                .patch(
                    PatchContext.of(PatchType.JSON_MERGE),
                    "{\"spec\":{\"sparseFile\":{\"dataDir\":\"/b\"}}}"),
        422,
        "StorageBackend.thinvol.io \"data\" is invalid: spec.sparseFile.dataDir: Invalid value:"
            + " \"string\": dataDir cannot be changed");
    robot
        .genericKubernetesResources("thinvol.io/v1alpha1", "StorageBackend")
        .withName("data")
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"logLevel\":\"DEBUG\"}}");
  }

  @Test
  void anUpdateMayKeepAValueThatNoLongerValidates() {
    GenericKubernetesResource job =
        Serialization.unmarshal(
            "apiVersion: thinvol.io/v1alpha1\nkind: ReclaimSpaceJob\nmetadata:\n  name: old\n"
                + "  namespace: apps\nspec:\n  timeout: 5\n  target:\n"
                + "    persistentVolumeClaim: data\n",
            GenericKubernetesResource.class);
    try (KubernetesClient unvalidated = cluster.unvalidated()) {
      unvalidated.resource(job).create();
    }
    var stored =
        cluster
            .admin()
            .genericKubernetesResources("thinvol.io/v1alpha1", "ReclaimSpaceJob")
            .inNamespace("apps")
            .withName("old");
    stored.patch(
        PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\":{\"labels\":{\"a\":\"b\"}}}");
    refused(
        () -> stored.patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"timeout\":6}}"),
        422,
        "ReclaimSpaceJob.thinvol.io \"old\" is invalid: spec.timeout is 6, below the minimum 60");
  }

  @Test
  void aDeleteOfAnObjectAsReadIsRefusedOnceItChanged() {
    KubernetesClient admin = cluster.admin();
    io.fabric8.kubernetes.api.model.Secret read =
        admin.secrets().inNamespace("ops").resource(secret("ops", "s")).create();
    admin
        .secrets()
        .inNamespace("ops")
        .withName("s")
        .edit(
            changed -> {
              changed.getMetadata().setLabels(Map.of("changed", "yes"));
              return changed;
            });
    String now =
        admin.secrets().inNamespace("ops").withName("s").get().getMetadata().getResourceVersion();

    refused(
        () -> admin.resource(read).lockResourceVersion().delete(),
        409,
        "Operation cannot be fulfilled on secrets \"s\": the ResourceVersion in the precondition ("
            + read.getMetadata().getResourceVersion()
            + ") does not match the ResourceVersion in record ("
            + now
            + "). The object might have been modified");
    assertThat(admin.secrets().inNamespace("ops").withName("s").get()).isNotNull();
    admin.secrets().inNamespace("ops").withName("s").lockResourceVersion(now).delete();
    assertThat(admin.secrets().inNamespace("ops").withName("s").get()).isNull();
  }

  private static io.fabric8.kubernetes.api.model.Secret secret(String namespace, String name) {
    return new SecretBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(namespace)
        .endMetadata()
        .withStringData(Map.of("k", "v"))
        .build();
  }

  private static io.fabric8.kubernetes.api.model.Event event(
      String namespace, GenericKubernetesResource about) {
    return new EventBuilder()
        .withNewMetadata()
        .withName("b.1")
        .withNamespace(namespace)
        .endMetadata()
        .withInvolvedObject(
            new ObjectReferenceBuilder()
                .withApiVersion(about.getApiVersion())
                .withKind(about.getKind())
                .withName(about.getMetadata().getName())
                .withUid(about.getMetadata().getUid())
                .build())
        .withReason("Ready")
        .withType("Normal")
        .withFirstTimestamp("2026-01-01T00:00:00Z")
        .build();
  }
}
