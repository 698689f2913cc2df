package io.thinvol.e2e.support;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.thinvol.addons.call.DriverCalls;
import io.thinvol.addons.call.GrpcMoveCopier;
import io.thinvol.addons.call.MoveCopier;
import io.thinvol.addons.call.ProjectedToken;
import io.thinvol.addons.resolve.DriverEndpoint;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The operator's calls of a node's driver (its MoveCopy service), made by the suite with the
 * operator's own client classes as the operator makes them: to the driver pod's CSI-Addons TLS
 * port, its certificate checked against the operator's Secret, with a token of the operator's
 * ServiceAccount for the addons audience (the only account the drivers let in).
 */
public final class OperatorCalls implements AutoCloseable {

  private static final String ACCOUNT = "thinvol-operator";

  private final KubernetesClient client;
  private final DriverCalls calls;
  private final MoveCopier copier;

  public OperatorCalls(KubernetesClient client) {
    this.client = client;
    String token =
        client
            .serviceAccounts()
            .inNamespace(Names.OPERATOR)
            .withName(ACCOUNT)
            .tokenRequest(
                new TokenRequestBuilder()
                    .withNewSpec()
                    .withAudiences(ProjectedToken.DEFAULT_AUDIENCE)
                    .withExpirationSeconds(600L)
                    .endSpec()
                    .build())
            .getStatus()
            .getToken();
    this.calls = new DriverCalls(client, Names.OPERATOR, () -> token);
    this.copier = new GrpcMoveCopier(calls);
  }

  public MoveCopier copier() {
    return copier;
  }

  /** The backend's driver pod on {@code node}. */
  public DriverEndpoint driverOn(String node) {
    Pod pod =
        NodePods.all(client).stream()
            .filter(p -> node.equals(p.getSpec().getNodeName()))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no driver pod on node " + node));
    return DriverEndpoint.of(Names.BACKEND, pod, null);
  }

  /** The call's answer; its failure as thrown. */
  public static <T> T await(CompletableFuture<T> call, Duration limit) throws Exception {
    try {
      return call.get(limit.toMillis(), TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      throw e.getCause() instanceof Exception cause ? cause : e;
    }
  }

  @Override
  public void close() {
    calls.close();
  }
}
