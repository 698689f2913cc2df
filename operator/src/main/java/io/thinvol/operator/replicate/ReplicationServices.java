package io.thinvol.operator.replicate;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.thinvol.addons.call.MoveCopier;
import io.thinvol.api.kube.Events;
import io.thinvol.api.v1alpha1.VolumeReplication;
import io.thinvol.operator.transfer.DriverEndpoints;
import io.thinvol.operator.transfer.InFlightCalls;
import io.thinvol.operator.transfer.NodeFence;
import io.thinvol.operator.transfer.TargetChoice;
import java.time.Clock;

/** What every step of every replication works with. */
record ReplicationServices(
    KubernetesClient client,
    InFlightCalls<VolumeReplication> calls,
    MoveCopier copier,
    DriverEndpoints endpoints,
    TargetChoice targets,
    NodeFence fence,
    ReplicationMetrics metrics,
    Events events,
    Clock clock) {}
