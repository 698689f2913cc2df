package io.thinvol.operator.kinds;

import java.util.List;

/**
 * What an admin is told of a CRD the operator needs and the cluster does not serve: what waits for
 * it, and the command that installs it from the release's files. The file names are those of {@code
 * crds/} and the chart's {@code crds/}, which the CRD generator names {@code
 * <plural>.<group>-v1.yml}.
 */
final class MissingCrd {

  /** Where the Helm chart keeps its CRDs; Helm installs them with the chart but never upgrades. */
  static final String CHART_CRDS = "charts/thinvol/crds/";

  private MissingCrd() {}

  static String message(String crd, List<String> waiting) {
    return "CRD "
        + crd
        + " is not installed, so "
        + said(waiting)
        + " wait until it is; install it from this release with kubectl apply -f "
        + file(crd)
        + " (helm upgrade never updates a chart's CRDs)";
  }

  /** {@code a}, {@code a, and b}, {@code a, b, and c}: each may hold an "and" of its own. */
  private static String said(List<String> waiting) {
    int last = waiting.size() - 1;
    return last == 0
        ? waiting.get(0)
        : String.join(", ", waiting.subList(0, last)) + ", and " + waiting.get(last);
  }

  static String file(String crd) {
    return CHART_CRDS + crd + "-v1.yml";
  }
}
