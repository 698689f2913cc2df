package io.thinvol.operator.move;

import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBindingBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBuilder;

/**
 * The admission policy that keeps the moving claim's name for the operator while the claim does not
 * exist: between its deletion and its re-creation a StatefulSet controller (or anyone) creating a
 * claim of that name would have it bound to a new, empty volume. Every create of a claim of that
 * name in that namespace is denied unless the operator's ServiceAccount makes it and marks it as
 * this move's.
 */
final class CutOverWindow {

  /** How the API server words this policy's denial: a dry run meets it once it is in force. */
  static String denial(MoveNames names) {
    return "ValidatingAdmissionPolicy '" + names.window() + "'";
  }

  private CutOverWindow() {}

  static ValidatingAdmissionPolicy policy(MoveNames names, String moveName, String operatorUser) {
    String claimMatches =
        "request.namespace == '"
            + names.namespace()
            + "' && object.metadata.name == '"
            + names.claim()
            + "'";
    String allowed =
        "request.userInfo.username == '"
            + operatorUser
            + "' && has(object.metadata.annotations) && '"
            + MoveNames.MOVED_BY
            + "' in object.metadata.annotations && object.metadata.annotations['"
            + MoveNames.MOVED_BY
            + "'] == '"
            + moveName
            + "'";
    return new ValidatingAdmissionPolicyBuilder()
        .withNewMetadata()
        .withName(names.window())
        .withLabels(names.labels())
        .endMetadata()
        .withNewSpec()
        .withFailurePolicy("Fail")
        .withNewMatchConstraints()
        .addNewResourceRule()
        .withApiGroups("")
        .withApiVersions("v1")
        .withOperations("CREATE")
        .withResources("persistentvolumeclaims")
        .endResourceRule()
        .endMatchConstraints()
        .addNewMatchCondition()
        .withName("the-moving-claim")
        .withExpression(claimMatches)
        .endMatchCondition()
        .addNewValidation()
        .withExpression(allowed)
        .withReason("Forbidden")
        .withMessage(
            "PersistentVolumeClaim "
                + names.namespace()
                + "/"
                + names.claim()
                + " is being moved to another node by VolumeMove "
                + moveName
                + "; only the operator re-creates it")
        .endValidation()
        .endSpec()
        .build();
  }

  static ValidatingAdmissionPolicyBinding binding(MoveNames names) {
    return new ValidatingAdmissionPolicyBindingBuilder()
        .withNewMetadata()
        .withName(names.window())
        .withLabels(names.labels())
        .endMetadata()
        .withNewSpec()
        .withPolicyName(names.window())
        .withValidationActions("Deny")
        .endSpec()
        .build();
  }
}
