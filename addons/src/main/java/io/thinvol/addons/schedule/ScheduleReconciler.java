package io.thinvol.addons.schedule;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.thinvol.addons.AddonsMetrics;
import io.thinvol.addons.cron.CronPlanner;
import io.thinvol.addons.cron.CronSchedule;
import io.thinvol.addons.cron.StaggeredSchedule;
import io.thinvol.api.BackendNames;
import io.thinvol.api.kube.Events;
import io.thinvol.api.v1alpha1.StorageBackend;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Annotation schedules without an object per PVC: every bound PVC of a thinvol StorageClass is
 * reconciled, its schedule chosen by {@link SchedulePolicy} and its next run kept as the
 * reconciler's own timer (held in memory, a few dozen bytes per PVC). Changes to the PVC, its
 * Namespace, StorageClass or StorageBackend re-reconcile the PVCs they touch at once. Each run's
 * time is recorded on the PVC ({@link ScheduledJobs#LAST_RUN}); after a restart the runs missed
 * while no operator ran are made up once, the latest only, as {@link CronPlanner} does for cron
 * jobs.
 */
@ControllerConfiguration(name = "reclaimspace-schedules", generationAwareEventProcessing = false)
public class ScheduleReconciler implements Reconciler<PersistentVolumeClaim> {

  private static final Logger log = LoggerFactory.getLogger(ScheduleReconciler.class);
  private static final Duration PURGE_EVERY = Duration.ofMinutes(10);
  private static final String BY_CLASS = "storage-class";

  private record Tracked(
      String namespace,
      String name,
      String schedule,
      SchedulePolicy.Level level,
      Instant handled) {}

  private final ScheduledJobs jobs;
  private final Events events;
  private final AddonsMetrics metrics;
  private final Clock clock;
  private final Duration staggerWindow;
  private final Map<String, Tracked> tracked = new ConcurrentHashMap<>();
  private final Map<String, String> warnedInvalid = new ConcurrentHashMap<>();
  private final UpstreamAnnotations upstream;
  private volatile Instant lastPurge = Instant.MIN;
  private InformerEventSource<Namespace, PersistentVolumeClaim> namespaces;
  private InformerEventSource<StorageClass, PersistentVolumeClaim> storageClasses;
  private InformerEventSource<StorageBackend, PersistentVolumeClaim> backends;

  public ScheduleReconciler(
      ScheduledJobs jobs,
      Events events,
      AddonsMetrics metrics,
      Clock clock,
      Duration staggerWindow) {
    this.jobs = jobs;
    this.events = events;
    this.metrics = metrics;
    this.clock = clock;
    this.staggerWindow = staggerWindow;
    this.upstream = new UpstreamAnnotations(events);
  }

  @Override
  public List<EventSource<?, PersistentVolumeClaim>> prepareEventSources(
      EventSourceContext<PersistentVolumeClaim> context) {
    namespaces =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(Namespace.class, PersistentVolumeClaim.class)
                .withSecondaryToPrimaryMapper(ns -> claimsIn(context, ns.getMetadata().getName()))
                .build(),
            context);
    context.getPrimaryCache().addIndexer(BY_CLASS, ScheduleReconciler::storageClassOf);
    storageClasses =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(StorageClass.class, PersistentVolumeClaim.class)
                .withSecondaryToPrimaryMapper(sc -> claimsOfClasses(context, Stream.of(sc)))
                .build(),
            context);
    // Only what the schedules read: a backend's spec, not the status its reconciler keeps writing.
    backends =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(StorageBackend.class, PersistentVolumeClaim.class)
                .withOnUpdateFilter(
                    (newer, older) ->
                        !Objects.equals(
                            newer.getMetadata().getGeneration(),
                            older.getMetadata().getGeneration()))
                .withSecondaryToPrimaryMapper(
                    b ->
                        claimsOfClasses(
                            context,
                            storageClasses.list(
                                sc ->
                                    BackendNames.backendOfDriver(sc.getProvisioner())
                                        .filter(b.getMetadata().getName()::equals)
                                        .isPresent())))
                .build(),
            context);
    return List.of(namespaces, storageClasses, backends);
  }

  private static Set<ResourceID> claimsIn(
      EventSourceContext<PersistentVolumeClaim> context, String namespace) {
    return context
        .getPrimaryCache()
        .list(namespace)
        .map(ResourceID::fromResource)
        .collect(Collectors.toSet());
  }

  /** The PVCs of some StorageClasses, from an index of the PVC cache by class. */
  private static Set<ResourceID> claimsOfClasses(
      EventSourceContext<PersistentVolumeClaim> context, Stream<StorageClass> classes) {
    return classes
        .flatMap(
            sc -> context.getPrimaryCache().byIndex(BY_CLASS, sc.getMetadata().getName()).stream())
        .map(ResourceID::fromResource)
        .collect(Collectors.toSet());
  }

  private static List<String> storageClassOf(PersistentVolumeClaim claim) {
    return claim.getSpec() == null || claim.getSpec().getStorageClassName() == null
        ? List.of()
        : List.of(claim.getSpec().getStorageClassName());
  }

  @Override
  public UpdateControl<PersistentVolumeClaim> reconcile(
      PersistentVolumeClaim claim, Context<PersistentVolumeClaim> context) {
    String uid = claim.getMetadata().getUid();
    MDC.put("pvc", claim.getMetadata().getNamespace() + "/" + claim.getMetadata().getName());
    try {
      Instant now = clock.instant();
      purgeDeleted(context, now);
      Optional<StorageBackend> backend = backendOf(claim);
      if (backend.isEmpty()) {
        untrack(uid);
        return UpdateControl.noUpdate();
      }
      upstream.check(claim);
      SchedulePolicy.Decision decision =
          SchedulePolicy.decide(
              claim.getMetadata().getAnnotations(),
              annotations(namespaces, claim.getMetadata().getNamespace()),
              annotations(storageClasses, claim.getSpec().getStorageClassName()),
              Optional.ofNullable(backend.get().getSpec())
                  .map(s -> s.getReclaimSpace())
                  .map(r -> r.getSchedule())
                  .orElse(null));
      if (decision.disabledBy().isPresent()) {
        if (untrack(uid) != null) {
          events.normal(
              claim,
              "ReclaimDisabled",
              "scheduled space reclaim is off: "
                  + SchedulePolicy.ENABLE
                  + "=false on the "
                  + decision.disabledBy().get());
        }
        return UpdateControl.noUpdate();
      }
      return schedule(claim, decision, now);
    } finally {
      MDC.remove("pvc");
    }
  }

  private UpdateControl<PersistentVolumeClaim> schedule(
      PersistentVolumeClaim claim, SchedulePolicy.Decision decision, Instant now) {
    String uid = claim.getMetadata().getUid();
    for (SchedulePolicy.Candidate candidate : decision.candidates()) {
      CronSchedule cron;
      try {
        cron = CronSchedule.parse(candidate.schedule());
      } catch (IllegalArgumentException e) {
        if (!candidate.schedule().equals(warnedInvalid.put(uid, candidate.schedule()))) {
          events.warning(
              claim,
              "InvalidSchedule",
              "the "
                  + SchedulePolicy.SCHEDULE
                  + " annotation on the "
                  + candidate.level()
                  + " is ignored: "
                  + e.getMessage());
        }
        continue;
      }
      StaggeredSchedule staggered = StaggeredSchedule.of(cron, uid, staggerWindow, now);
      Tracked before = tracked.get(uid);
      boolean same = before != null && before.schedule().equals(candidate.schedule());
      // First seen by this process: runs missed since the claim's last one (while no operator
      // ran) are made up once, the latest only, as for cron jobs. A new schedule starts now.
      Optional<Instant> lastRun =
          before == null
              ? ScheduledJobs.lastRun(claim).filter(t -> t.isBefore(now))
              : Optional.empty();
      Instant since = same ? before.handled() : lastRun.orElse(now);
      CronPlanner.Plan plan = CronPlanner.plan(staggered, since, now, null);
      Optional<Instant> due = plan.due();
      due.ifPresent(
          run -> {
            if (lastRun.isPresent()) {
              events.normal(
                  claim,
                  "MissedRunStarted",
                  (plan.missed() + 1)
                      + " scheduled run(s) passed while no operator ran (the last run was "
                      + lastRun.get()
                      + "); the latest, of "
                      + run
                      + ", starts now");
            }
            jobs.start(claim, run, candidate.level());
          });
      Instant handled = due.orElse(since);
      Instant next = plan.next().orElse(null);
      tracked.put(
          uid,
          new Tracked(
              claim.getMetadata().getNamespace(),
              claim.getMetadata().getName(),
              candidate.schedule(),
              candidate.level(),
              handled));
      metrics.scheduled(
          claim.getMetadata().getNamespace(),
          claim.getMetadata().getName(),
          candidate.level().name(),
          next == null ? 0 : next.getEpochSecond());
      if (before != null && (!same || before.level() != candidate.level())) {
        events.normal(
            claim,
            "ReclaimScheduled",
            "space is reclaimed on \""
                + candidate.schedule()
                + "\" (from the "
                + candidate.level()
                + "); next run at "
                + next);
      }
      UpdateControl<PersistentVolumeClaim> control = UpdateControl.noUpdate();
      return next == null
          ? control
          : control.rescheduleAfter(Duration.between(now, next).plusMillis(100));
    }
    untrack(uid);
    return UpdateControl.noUpdate();
  }

  /** The StorageBackend of a bound PVC of one of its StorageClasses. */
  private Optional<StorageBackend> backendOf(PersistentVolumeClaim claim) {
    if (claim.getMetadata().getDeletionTimestamp() != null
        || claim.getStatus() == null
        || !"Bound".equals(claim.getStatus().getPhase())
        || claim.getSpec().getStorageClassName() == null) {
      return Optional.empty();
    }
    return storageClasses
        .get(new ResourceID(claim.getSpec().getStorageClassName()))
        .flatMap(sc -> BackendNames.backendOfDriver(sc.getProvisioner()))
        .flatMap(name -> backends.get(new ResourceID(name)));
  }

  private static Map<String, String> annotations(
      InformerEventSource<? extends HasMetadata, ?> source, String name) {
    return name == null
        ? Map.of()
        : source
            .get(new ResourceID(name))
            .map(o -> o.getMetadata().getAnnotations())
            .orElse(Map.of());
  }

  private Tracked untrack(String uid) {
    warnedInvalid.remove(uid);
    Tracked gone = tracked.remove(uid);
    if (gone != null) {
      metrics.unscheduled(gone.namespace(), gone.name());
    }
    return gone;
  }

  /** A deleted PVC is not reconciled (there is no finalizer): forget it from time to time. */
  private void purgeDeleted(Context<PersistentVolumeClaim> context, Instant now) {
    if (lastPurge.plus(PURGE_EVERY).isAfter(now)) {
      return;
    }
    lastPurge = now;
    Set<String> present =
        context
            .getPrimaryCache()
            .list()
            .map(c -> c.getMetadata().getUid())
            .collect(Collectors.toSet());
    tracked.keySet().stream().filter(uid -> !present.contains(uid)).toList().forEach(this::untrack);
    upstream.retainOnly(present);
    log.debug("{} PVCs on a schedule", tracked.size());
  }

  /** PVCs on a schedule now. */
  public int scheduledCount() {
    return tracked.size();
  }
}
