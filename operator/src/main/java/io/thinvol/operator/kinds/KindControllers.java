package io.thinvol.operator.kinds;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.Operator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * Controllers that need some of thinvol's kinds beyond StorageBackend: they run once the cluster
 * serves every one of them.
 *
 * @param what what waits while one of the kinds is missing, as an admin reads it ("VolumeMoves and
 *     node evacuation")
 * @param kinds the kinds they watch or make
 * @param register registers them with an operator not started yet
 */
public record KindControllers(
    String what, List<Class<? extends HasMetadata>> kinds, Consumer<Operator> register) {

  /** The names of the kinds' CRDs ({@code volumemoves.thinvol.io}). */
  Set<String> crds() {
    Set<String> names = new TreeSet<>();
    kinds.forEach(kind -> names.add(HasMetadata.getFullResourceName(kind)));
    return names;
  }
}
