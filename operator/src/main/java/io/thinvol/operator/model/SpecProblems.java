package io.thinvol.operator.model;

import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.api.v1alpha1.StorageClassSpec;
import io.thinvol.operator.monitoring.AlertThresholds;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What makes a spec impossible to deploy, in sentences a person can act on. The CRD schema refuses
 * most of it already; this is the guard for API servers that do not evaluate its CEL rules (and for
 * objects stored before a rule existed), and for what only a look at the other backends shows: two
 * backends sharing a data directory would fight over its lock and its volumes.
 */
public final class SpecProblems {

  private static final Set<String> SYSTEM_DIRS =
      Set.of(
          "/", "/bin", "/boot", "/dev", "/etc", "/lib", "/proc", "/run", "/sbin", "/sys", "/usr");

  private SpecProblems() {}

  /** Problems of {@code backend}; {@code others} are the other StorageBackends of the cluster. */
  public static List<String> of(StorageBackend backend, List<StorageBackend> others) {
    List<String> problems = new ArrayList<>();
    String name = backend.getMetadata().getName();
    if (name.length() > 52) {
      problems.add("the name has more than 52 characters, too long for the driver name");
    }
    Effective effective = Effective.of(backend);
    checkDir("spec.sparseFile.dataDir", effective.dataDir(), problems);
    checkDir("spec.kubeletDir", effective.kubeletDir(), problems);
    if (within(effective.dataDir(), effective.kubeletDir())) {
      problems.add("spec.sparseFile.dataDir must not be inside the kubelet directory");
    }
    Set<String> classNames = new HashSet<>();
    int defaults = 0;
    for (StorageClassSpec storageClass : effective.storageClasses()) {
      if (!classNames.add(storageClass.getName())) {
        problems.add("StorageClass " + storageClass.getName() + " is listed twice");
      }
      if (Boolean.TRUE.equals(storageClass.getIsDefault())) {
        defaults++;
      }
    }
    if (defaults > 1) {
      problems.add(defaults + " StorageClasses are marked default; at most one may be");
    }
    problems.addAll(AlertThresholds.of(backend).problems());
    for (StorageBackend other : others) {
      String otherDir = Effective.of(other).dataDir();
      if (!other.getMetadata().getName().equals(name)
          && (within(effective.dataDir(), otherDir) || within(otherDir, effective.dataDir()))
          && createdBefore(other, backend)) {
        problems.add(
            "spec.sparseFile.dataDir "
                + effective.dataDir()
                + " overlaps "
                + otherDir
                + " of StorageBackend "
                + other.getMetadata().getName()
                + "; each backend needs a directory of its own");
      }
    }
    return problems;
  }

  private static void checkDir(String field, String dir, List<String> problems) {
    if (!dir.startsWith("/") || Arrays.asList(dir.split("/")).contains("..")) {
      problems.add(field + " must be an absolute path without '..': " + dir);
      return;
    }
    String trimmed = dir.replaceAll("/+$", "");
    if (SYSTEM_DIRS.contains(trimmed.isEmpty() ? "/" : trimmed)) {
      problems.add(field + " must not be the system directory " + dir);
    }
  }

  /** Whether {@code dir} is {@code parent} or below it. */
  private static boolean within(String dir, String parent) {
    return dir.equals(parent) || dir.startsWith(parent.endsWith("/") ? parent : parent + "/");
  }

  // The older backend keeps the directory; ties go by name so exactly one of the two is refused.
  private static boolean createdBefore(StorageBackend a, StorageBackend b) {
    String ta = a.getMetadata().getCreationTimestamp();
    String tb = b.getMetadata().getCreationTimestamp();
    int byTime = ta == null || tb == null ? 0 : ta.compareTo(tb);
    return byTime != 0
        ? byTime < 0
        : a.getMetadata().getName().compareTo(b.getMetadata().getName()) < 0;
  }
}
