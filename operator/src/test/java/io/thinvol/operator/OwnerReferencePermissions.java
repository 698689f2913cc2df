package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.thinvol.operator.model.OperatorRbac;
import io.thinvol.testing.ApiRequest;
import java.util.Locale;

/**
 * OwnerReferencesPermissionEnforcement (on by default on OpenShift): an owner reference with {@code
 * blockOwnerDeletion: true} is refused unless the writer may {@code update} the owner's {@code
 * finalizers} subresource.
 */
public final class OwnerReferencePermissions {

  private OwnerReferencePermissions() {}

  /** Every reference of {@code object} is one the operator's RBAC lets it write. */
  public static void assertAdmitted(HasMetadata object) {
    assertThat(object.getMetadata().getOwnerReferences())
        .as("owner references of %s", object.getMetadata().getName())
        .isNotEmpty()
        .allSatisfy(
            reference -> {
              if (Boolean.TRUE.equals(reference.getBlockOwnerDeletion())) {
                assertThat(mayUpdateFinalizers(reference))
                    .as(
                        "blockOwnerDeletion on a %s needs update on %s",
                        reference.getKind(), finalizers(reference))
                    .isTrue();
              }
            });
  }

  private static boolean mayUpdateFinalizers(OwnerReference owner) {
    String apiVersion = owner.getApiVersion();
    String group = apiVersion.contains("/") ? apiVersion.substring(0, apiVersion.indexOf('/')) : "";
    ApiRequest update = new ApiRequest("update", group, finalizers(owner), null, owner.getName());
    return OperatorRbac.clusterRules(false).stream().anyMatch(update::allowedBy);
  }

  /** The kinds owning what the operator writes have regular plurals. */
  private static String finalizers(OwnerReference owner) {
    return owner.getKind().toLowerCase(Locale.ROOT) + "s/finalizers";
  }
}
