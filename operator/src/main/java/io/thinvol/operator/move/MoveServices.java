package io.thinvol.operator.move;

import io.thinvol.api.kube.Events;
import io.thinvol.operator.model.Settings;
import io.thinvol.operator.transfer.DriverEndpoints;
import io.thinvol.operator.transfer.TargetChoice;
import java.time.Clock;

/**
 * What every step of every move works with.
 *
 * @param operatorUser the operator's ServiceAccount as the API server names it: the one user the
 *     cut-over's admission policy lets create the moving claim
 */
record MoveServices(
    MoveCluster cluster,
    CopyCalls calls,
    DriverEndpoints endpoints,
    TargetChoice targets,
    KnownMoves moves,
    CopySlots slots,
    MoveNodes nodes,
    Events events,
    Settings settings,
    String operatorUser,
    Clock clock) {}
