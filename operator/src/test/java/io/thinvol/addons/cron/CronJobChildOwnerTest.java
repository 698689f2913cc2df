package io.thinvol.addons.cron;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.api.v1alpha1.ReclaimSpaceCronJob;
import io.thinvol.api.v1alpha1.ReclaimSpaceJob;
import io.thinvol.operator.OwnerReferencePermissions;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * A cron job's runs are its children as a batch CronJob's Jobs are: a foreground deletion of the
 * cron job waits for them (blockOwnerDeletion), which the operator's RBAC must allow.
 */
class CronJobChildOwnerTest {

  @Test
  void theChildBlocksItsCronJobsDeletionAndTheOperatorMaySetThat() {
    ReclaimSpaceCronJob cron =
        Serialization.unmarshal(
            "apiVersion: thinvol.io/v1alpha1\nkind: ReclaimSpaceCronJob\nmetadata:\n"
                + "  name: weekly\n  namespace: apps\n  uid: 6c4f0d7e-1\nspec:\n"
                + "  schedule: \"@weekly\"\n  jobTemplate:\n    spec:\n      target:\n"
                + "        persistentVolumeClaim: data\n",
            ReclaimSpaceCronJob.class);
    ReclaimSpaceJob child = ChildJobs.desired(cron, Instant.parse("2026-11-23T00:00:00Z"));
    assertThat(child.getMetadata().getOwnerReferences().get(0).getBlockOwnerDeletion()).isTrue();
    OwnerReferencePermissions.assertAdmitted(child);
  }
}
