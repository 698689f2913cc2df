package io.thinvol.addons.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.thinvol.addons.ClusterFixtures;
import io.thinvol.api.v1alpha1.ReclaimSpaceJob;
import io.thinvol.operator.OwnerReferencePermissions;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * A scheduled reclaim of a claim goes away with the claim, but does not hold up its deletion: that
 * would need the right to update the finalizers of every claim in the cluster.
 */
class ScheduledJobOwnerTest {

  @Test
  void theJobIsOwnedByItsClaimWithoutBlockingItsDeletion() {
    PersistentVolumeClaim claim = ClusterFixtures.claim("apps", "data", "local");
    claim.getMetadata().setUid("0f3a9c2e-2");
    ReclaimSpaceJob job =
        ScheduledJobs.job(
            claim, Instant.parse("2026-11-23T03:00:00Z"), SchedulePolicy.Level.StorageClass);
    assertThat(job.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(owner -> assertThat(owner.getBlockOwnerDeletion()).isNotEqualTo(true));
    OwnerReferencePermissions.assertAdmitted(job);
  }
}
