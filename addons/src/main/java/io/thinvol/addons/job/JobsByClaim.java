package io.thinvol.addons.job;

import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.IndexerResourceCache;
import io.thinvol.api.v1alpha1.ReclaimSpaceJob;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The ReclaimSpaceJobs of each PVC, from an index on the ReclaimSpaceJob controller's own cache: a
 * scheduled run looks up its PVC's earlier jobs without listing those of the whole namespace, and a
 * change to a PVC wakes only its jobs.
 */
public final class JobsByClaim {

  private static final String INDEX = "claim";

  private volatile IndexerResourceCache<ReclaimSpaceJob> jobs;

  /** Called once the controller's cache exists, before it is started. */
  void index(IndexerResourceCache<ReclaimSpaceJob> cache) {
    cache.addIndexer(INDEX, JobsByClaim::claimOf);
    jobs = cache;
  }

  /**
   * @throws IllegalStateException before the ReclaimSpaceJob controller is registered
   */
  public List<ReclaimSpaceJob> of(String namespace, String claim) {
    IndexerResourceCache<ReclaimSpaceJob> cache = jobs;
    if (cache == null) {
      throw new IllegalStateException("the ReclaimSpaceJob controller is not registered yet");
    }
    return cache.byIndex(INDEX, key(namespace, claim));
  }

  Set<ResourceID> ids(String namespace, String claim) {
    return of(namespace, claim).stream().map(ResourceID::fromResource).collect(Collectors.toSet());
  }

  private static List<String> claimOf(ReclaimSpaceJob job) {
    return job.getSpec() == null
            || job.getSpec().getTarget() == null
            || job.getSpec().getTarget().getPersistentVolumeClaim() == null
        ? List.of()
        : List.of(
            key(
                job.getMetadata().getNamespace(),
                job.getSpec().getTarget().getPersistentVolumeClaim()));
  }

  private static String key(String namespace, String claim) {
    return namespace + "/" + claim;
  }
}
