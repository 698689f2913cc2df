package io.thinvol.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.crud.AttributeSet;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * The fabric8 mock API server (CRUD, its store indexed) made strict: before a request reaches the
 * store it is authorised by RBAC for the user it acts as ({@code Impersonate-User}, as with a real
 * server; no such header is the cluster admin); only the custom resources of Established CRDs are
 * served ({@link CrdServing}); before an object is stored it passes admission as on a real server:
 * its namespace exists, the built-in kinds' rules ({@link BuiltInKinds}), Event validation, RBAC's
 * escalation check on roles and bindings (a {@code bind} it authorises is recorded as a decision),
 * owner-reference permission enforcement, and for custom resources pruning, defaults, the OpenAPI
 * schema and the CEL rules. Refusals carry the real server's codes, reasons and messages; a write
 * answers the object as stored. Lists are in the real server's key order and also filter by field
 * selectors on any field, as {@code kubectl describe} lists Events.
 */
public final class StrictApiServer extends IndexedCrudDispatcher {

  public static final String ADMIN = "system:admin";
  private static final String IMPERSONATE = "Impersonate-User";

  /**
   * From the admin only: store a custom resource without its schema and rules, as one stored before
   * its CRD tightened. No real server does this on request: tests using it are mock-only.
   */
  static final String UNVALIDATED = "X-Thinvol-Unvalidated";

  /** A request as decided: who, what, and the HTTP status of the answer (403 and 422 refused). */
  public record Decision(String user, ApiRequest request, int code, String message) {}

  private volatile Rbac rbac;
  private static final String CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/";

  private final CustomResources customResources = new CustomResources();
  private final CrdServing crdServing = new CrdServing();
  private final List<Decision> decisions = Collections.synchronizedList(new ArrayList<>());
  private final ThreadLocal<String> caller = new ThreadLocal<>();
  private final ThreadLocal<ApiRequest> current = new ThreadLocal<>();
  private final ThreadLocal<Boolean> unvalidated = new ThreadLocal<>();
  private final CreateAdmission createAdmission =
      new CreateAdmission(super::handleGet, this::record);

  public StrictApiServer(Rbac rbac) {
    this.rbac = rbac;
  }

  /** The grants it authorises by. */
  Rbac rbac() {
    return rbac;
  }

  /** Authorises by other grants from now on, as after an admin edited the roles. */
  void grant(Rbac grants) {
    this.rbac = grants;
  }

  /** Every resource request of every user other than the admin, in order. */
  public List<Decision> decisions() {
    synchronized (decisions) {
      return List.copyOf(decisions);
    }
  }

  @Override
  public MockResponse dispatch(RecordedRequest request) {
    String user = Optional.ofNullable(request.getHeader(IMPERSONATE)).orElse(ADMIN);
    Optional<ApiRequest> api = ApiRequest.of(request.method().name(), request.getPath());
    if (api.isEmpty()) {
      return Discovery.answer(crdServing, request.getPath())
          .orElseGet(() -> super.dispatch(request));
    }
    ApiRequest what = api.get();
    if (what.group().equals("authorization.k8s.io")
        && what.resource().equals("selfsubjectrulesreviews")) {
      MockResponse review =
          new MockResponse()
              .setResponseCode(201)
              .setBody(rbac.rulesReview(user, user.equals(ADMIN), request.getBody().readUtf8()));
      record(user, what, review.code(), null); // every user may (system:basic-user)
      return review;
    }
    if (!user.equals(ADMIN) && !rbac.allows(user, what)) {
      Refusal refusal = Refusal.forbidden(Rbac.forbidden(user, what), what);
      decisions.add(new Decision(user, what, refusal.code, refusal.getMessage()));
      return refusal.response();
    }
    if (!CrdServing.builtIn(what.group())
        && !crdServing.serves(what.group(), version(request.getPath()), baseResource(what))) {
      return Discovery.notFound();
    }
    if (what.verb().equals("create") && !what.resource().contains("/")) {
      Optional<MockResponse> admitted = createAdmission.admit(user, request, what);
      if (admitted.isPresent()) {
        return admitted.get();
      }
    }
    caller.set(user);
    current.set(what);
    unvalidated.set(user.equals(ADMIN) && "true".equals(request.getHeader(UNVALIDATED)));
    try {
      if (what.verb().equals("delete") && what.name() != null) {
        Optional<Refusal> conflict =
            DeletePreconditions.refusal(
                new String(request.getBody().getBytes(), java.nio.charset.StandardCharsets.UTF_8),
                stored(request.getPath()),
                what);
        if (conflict.isPresent()) {
          throw conflict.get();
        }
      }
      MockResponse response =
          what.verb().equals("list")
              ? Listing.answer(request.getPath(), super::handleGet)
              : asStored(super.dispatch(request));
      record(user, what, response.code(), null);
      return response;
    } catch (Refusal refusal) {
      record(user, what, refusal.code, refusal.getMessage());
      return refusal.response();
    } finally {
      caller.remove();
      current.remove();
      unvalidated.remove();
    }
  }

  /**
   * A write's answer is the object as stored, after admission (the mock answers with the object
   * before it).
   */
  private MockResponse asStored(MockResponse response) {
    ApiRequest what = current.get();
    if (!List.of("create", "update", "patch").contains(what.verb())
        || response.code() >= 300
        || response.getBody() == null) {
      return response;
    }
    String body = response.getBody().readUtf8();
    response.setBody(body);
    if (body.isBlank()) {
      return response; // deleted: its last finalizer removed
    }
    JsonNode written = Serialization.unmarshal(body, JsonNode.class);
    String apiVersion = written.path("apiVersion").asText();
    String namespace = written.at("/metadata/namespace").asText("");
    String path =
        (apiVersion.contains("/") ? "/apis/" : "/api/")
            + apiVersion
            + (namespace.isEmpty() ? "" : "/namespaces/" + namespace)
            + "/"
            + what.resource().split("/", 2)[0]
            + "/"
            + written.at("/metadata/name").asText();
    MockResponse stored = super.handleGet(path);
    return stored.code() == 200
        ? new MockResponse().setResponseCode(response.code()).setBody(stored.getBody().readUtf8())
        : response;
  }

  /** The object a request's path names, as stored; null when there is none. */
  private JsonNode stored(String pathAndQuery) {
    MockResponse stored = super.handleGet(pathAndQuery.split("\\?", 2)[0]);
    return stored.code() == 200
        ? Serialization.unmarshal(stored.getBody().readUtf8(), JsonNode.class)
        : null;
  }

  private static String version(String path) {
    return path.replaceAll("^/+", "").split("[/?]")[2];
  }

  private static String baseResource(ApiRequest what) {
    return what.resource().split("/", 2)[0];
  }

  private void record(String user, ApiRequest what, int code, String message) {
    if (!user.equals(ADMIN)) {
      decisions.add(new Decision(user, what, code, message));
    }
  }

  /** Admission: the last step before the store, with the object as it would be stored. */
  @Override
  public void processEvent(
      String path,
      AttributeSet pathAttributes,
      AttributeSet oldAttributes,
      GenericKubernetesResource resource,
      String newState) {
    if (newState == null || caller.get() == null) {
      Optional<String> deletedCrd = newState == null ? deletedCrd(oldAttributes) : Optional.empty();
      super.processEvent(path, pathAttributes, oldAttributes, resource, newState);
      // The names of a deleted CRD are free: the naming controller accepts a CRD refused for them.
      deletedCrd.ifPresent(
          name -> crdServing.removed(name).forEach(refused -> storeAgain(CRDS + refused)));
      return;
    }
    ObjectNode object = (ObjectNode) Serialization.unmarshal(newState, JsonNode.class);
    if (object.path("status").isNull()) {
      object.remove("status"); // the mock's patch of an object without status writes a null one
    }
    String old = oldAttributes == null ? null : findResource(oldAttributes).getValue();
    JsonNode oldObject = old == null ? null : Serialization.unmarshal(old, JsonNode.class);
    String kind = object.path("kind").asText();
    String apiVersion = object.path("apiVersion").asText();
    String group = apiVersion.contains("/") ? apiVersion.substring(0, apiVersion.indexOf('/')) : "";
    String name = object.at("/metadata/name").asText();
    boolean statusWrite = current.get() != null && current.get().resource().endsWith("/status");
    String namespace = current.get() == null ? null : current.get().namespace();
    if (oldObject == null
        && namespace != null
        && !kind.equals("Namespace")
        && super.handleGet("/api/v1/namespaces/" + namespace).code() != 200) {
      throw Refusal.noNamespace(namespace);
    }
    if (current.get() != null && current.get().verb().equals("patch")) {
      MergePatches.dropNulls(
          object); // a merge patch's null removes the field (RFC 7386), never stores null
    }
    if (oldObject == null && object.path("metadata").isObject()) {
      // A real server's uids are random: names derived from them differ from object to object.
      ((ObjectNode) object.path("metadata")).put("uid", java.util.UUID.randomUUID().toString());
    }
    List<String> problems = new ArrayList<>();
    if (CrdServing.builtIn(group)) {
      BuiltInKinds.prepare(group, kind, object, oldObject, statusWrite);
      problems.addAll(BuiltInKinds.problems(group, kind, object, oldObject));
    }
    if (kind.equals("CustomResourceDefinition") && group.equals("apiextensions.k8s.io")) {
      problems.addAll(CrdServing.problems(object));
    }
    if (kind.equals("Event") && (group.isEmpty() || group.equals("events.k8s.io"))) {
      problems.addAll(EventAdmission.problems(object));
    }
    Optional<JsonNode> schema = customResources.schemaOf(object);
    if (schema.isPresent() && !Boolean.TRUE.equals(unvalidated.get())) {
      problems.addAll(customResources.admit(schema.get(), object, oldObject));
    }
    if (!problems.isEmpty()) {
      throw Refusal.invalid(kind, group, name, problems);
    }
    String user = caller.get();
    if (!user.equals(ADMIN) && group.equals(RoleEscalation.GROUP)) {
      RoleEscalation.Outcome escalation =
          RoleEscalation.check(user, rbac, object, this::storedRbacObject);
      escalation.bind().ifPresent(bind -> decisions.add(new Decision(user, bind, 200, null)));
      if (escalation.refusal().isPresent()) {
        throw Refusal.forbidden(escalation.refusal().get(), current.get());
      }
    }
    if (!user.equals(ADMIN)) {
      Optional<String> refused =
          OwnerReferenceAdmission.refusal(
              user, rbac, current.get(), object, oldObject, customResources);
      if (refused.isPresent()) {
        throw Refusal.forbidden(refused.get(), current.get());
      }
    }
    if (kind.equals("CustomResourceDefinition") && group.equals("apiextensions.k8s.io")) {
      crdServing.admit(object);
      customResources.register(object);
    }
    String stored = Serialization.asJson(object);
    super.processEvent(
        path,
        pathAttributes,
        oldAttributes,
        Serialization.unmarshal(stored, GenericKubernetesResource.class),
        stored);
  }

  private Optional<String> deletedCrd(AttributeSet key) {
    var stored = key == null ? null : findResource(key);
    if (stored == null) {
      return Optional.empty();
    }
    JsonNode object = Serialization.unmarshal(stored.getValue(), JsonNode.class);
    return object.path("kind").asText().equals("CustomResourceDefinition")
        ? Optional.of(object.at("/metadata/name").asText())
        : Optional.empty();
  }

  /** A role as stored, by its path under the RBAC API ({@code clusterroles/x}), or null. */
  private JsonNode storedRbacObject(String path) {
    MockResponse response = super.handleGet("/apis/" + RoleEscalation.GROUP + "/v1/" + path);
    return response.code() == 200
        ? Serialization.unmarshal(response.getBody().readUtf8(), JsonNode.class)
        : null;
  }
}
