package io.thinvol.driver.server;

import csi.v1.ControllerGrpc;
import io.grpc.BindableService;
import io.grpc.ServerInterceptor;
import io.netty.channel.EventLoopGroup;
import io.thinvol.driver.auth.BearerTokenInterceptor;
import io.thinvol.driver.auth.TokenAuthenticator;
import io.thinvol.driver.auth.TokenVerifier;
import io.thinvol.driver.config.AddonsConfig;
import io.thinvol.driver.config.DriverConfig;
import io.thinvol.driver.config.PeerConfig;
import io.thinvol.driver.core.DataDirHealth;
import io.thinvol.driver.core.DataDirUsability;
import io.thinvol.driver.core.GroupSnapshots;
import io.thinvol.driver.core.NodeManager;
import io.thinvol.driver.core.OperationLocks;
import io.thinvol.driver.core.SpaceReclaimer;
import io.thinvol.driver.core.VolumeHealth;
import io.thinvol.driver.core.VolumeManager;
import io.thinvol.driver.core.metadata.SnapshotMetadata;
import io.thinvol.driver.csi.AddonsIdentityService;
import io.thinvol.driver.csi.CallerAddress;
import io.thinvol.driver.csi.ControllerService;
import io.thinvol.driver.csi.DataDirGate;
import io.thinvol.driver.csi.GroupControllerService;
import io.thinvol.driver.csi.IdentityService;
import io.thinvol.driver.csi.MoveCopyService;
import io.thinvol.driver.csi.NodeService;
import io.thinvol.driver.csi.PeerCopyService;
import io.thinvol.driver.csi.PeerModifyService;
import io.thinvol.driver.csi.ReclaimSpaceService;
import io.thinvol.driver.csi.ReplicationService;
import io.thinvol.driver.csi.SnapshotMetadataService;
import io.thinvol.driver.host.CommandRunner;
import io.thinvol.driver.host.FsType;
import io.thinvol.driver.host.HostTools;
import io.thinvol.driver.host.ProcessCommandRunner;
import io.thinvol.driver.kube.ApiServer;
import io.thinvol.driver.metrics.HttpEndpoints;
import io.thinvol.driver.metrics.Metrics;
import io.thinvol.driver.metrics.MetricsInterceptor;
import io.thinvol.driver.peer.Lazy;
import io.thinvol.driver.peer.ModifyForwarding;
import io.thinvol.driver.peer.PeerLookup;
import io.thinvol.driver.peer.copy.ClaimSources;
import io.thinvol.driver.peer.copy.PeerPuller;
import io.thinvol.driver.peer.copy.ReplicaEntitlement;
import io.thinvol.driver.store.Catalog;
import io.thinvol.driver.store.DataDirLock;
import io.thinvol.driver.store.DataLayout;
import io.thinvol.driver.store.GroupCatalog;
import io.thinvol.peer.v1.PeerCopyGrpc;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The whole plugin: state rebuilt from the data dir, and the endpoints that share it: the CSI
 * socket, the CSI-Addons socket (for a local sidecar) and the CSI-Addons TLS port (for the
 * operator, token-authenticated).
 */
public final class Driver implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(Driver.class);

  /** How often a driver waiting for its data dir's mount looks again. */
  static final Duration MOUNT_POLL = Duration.ofSeconds(2);

  private final List<GrpcServer> servers;
  private final EventLoopGroup eventLoops;
  private final Metrics metrics;
  private final DriverConfig config;
  private final DataDirLock lock;
  private final DataDirHealth dataDir;

  private Driver(
      List<GrpcServer> servers,
      EventLoopGroup eventLoops,
      Metrics metrics,
      DriverConfig config,
      DataDirLock lock,
      DataDirHealth dataDir) {
    this.servers = servers;
    this.eventLoops = eventLoops;
    this.metrics = metrics;
    this.config = config;
    this.lock = lock;
    this.dataDir = dataDir;
  }

  /**
   * @param verifier checks tokens on the TLS port; only needed when {@code addons.port() > 0}
   */
  public static Driver start(DriverConfig config, AddonsConfig addons, TokenVerifier verifier)
      throws IOException {
    return start(config, addons, verifier, new ProcessCommandRunner());
  }

  /** As above, with the host commands run through {@code runner} (a test seam). */
  public static Driver start(
      DriverConfig config, AddonsConfig addons, TokenVerifier verifier, CommandRunner runner)
      throws IOException {
    return start(config, addons, PeerConfig.NONE, verifier, runner);
  }

  /** As above, forwarding ControllerModifyVolume to and accepting it from peers as configured. */
  public static Driver start(
      DriverConfig config,
      AddonsConfig addons,
      PeerConfig peers,
      TokenVerifier verifier,
      CommandRunner runner)
      throws IOException {
    DataDirUsability usability = new DataDirUsability(config.dataDir(), config.dedicatedMount());
    MountWait.untilMounted(config, usability, MOUNT_POLL);
    DataDirLock lock = DataDirLock.acquire(config.dataDir());
    DataLayout layout = new DataLayout(config.dataDir());
    Catalog catalog;
    GroupCatalog groupCatalog;
    try {
      catalog = Catalog.open(layout);
      groupCatalog = GroupCatalog.open(layout);
    } catch (IOException | RuntimeException e) {
      lock.close();
      throw e;
    }
    HostTools host = new HostTools(runner);
    for (FsType type : FsType.values()) {
      host.filesystemTools().unavailable(type).ifPresent(why -> log.warn("{}", why));
    }
    OperationLocks locks = new OperationLocks();
    // The API client is built on the first call that needs it: a driver that never asks never pays.
    Supplier<ApiServer> api = new Lazy<>(ApiServer::fromEnvironment);
    PeerLookup lookup =
        peers.forwards()
            ? PeerLookup.of(config, peers, addons.tlsCertificate(), addons.port(), api)
            : null;
    VolumeManager volumes =
        new VolumeManager(
            config, layout, catalog, host, locks, lookup == null ? null : new PeerPuller(lookup));
    volumes.recover();
    GroupSnapshots groups = volumes.groupSnapshots(groupCatalog);
    groups.recover();
    NodeManager node = new NodeManager(layout, volumes, host, locks);
    SpaceReclaimer reclaimer = new SpaceReclaimer(layout, volumes, host, locks);
    reclaimer.recover();
    DataDirHealth dataDir = new DataDirHealth(layout.root(), host, usability);
    VolumeHealth health = new VolumeHealth(layout, host, dataDir);
    Metrics metrics = new Metrics();
    metrics.gauge("thinvol_volumes", catalog::volumeCount);
    metrics.gauge("thinvol_unreadable_volumes", () -> catalog.unreadable().size());
    metrics.gauge("thinvol_capacity_available_bytes", () -> volumes.capacity().availableBytes());
    metrics.gauge("thinvol_data_dir_available_bytes", () -> dataDir.state().availableBytes());
    metrics.gauge("thinvol_data_dir_full", () -> dataDir.state().full() ? 1 : 0);
    metrics.gauge("thinvol_data_dir_size_bytes", () -> dataDir.state().totalBytes());
    metrics.gauge("thinvol_provisioned_bytes", volumes::promisedBytes);
    metrics.gauge("thinvol_allocated_bytes", volumes::allocatedBytes);
    metrics.decimalGauge("thinvol_overprovision_ratio", config::overprovisionRatio);
    metrics.gauge("thinvol_abnormal_volumes", () -> health.abnormalCount(catalog.volumes()));
    // what /readyz answers, for an alert: a PodMonitor scrapes pods that are not ready too
    metrics.gauge("thinvol_ready", () -> dataDir.state().problem() == null ? 1 : 0);
    List<ServerInterceptor> measured = List.of(new MetricsInterceptor(metrics));

    // One event loop thread moves the bytes of every endpoint; each has its own call threads.
    EventLoopGroup eventLoops = UnixSockets.eventLoops(1);
    List<GrpcServer> servers = new ArrayList<>();
    try {
      servers.add(
          GrpcServer.onSocket(
              UnixSockets.path(config.csiEndpoint()),
              List.of(
                  new IdentityService(config),
                  new ControllerService(
                      config,
                      volumes,
                      health,
                      lookup == null ? null : new ModifyForwarding(lookup)),
                  new GroupControllerService(groups),
                  new NodeService(config, node, health),
                  new SnapshotMetadataService(
                      new SnapshotMetadata(catalog, layout, config.nodeId()))),
              List.of(new DataDirGate(usability), new MetricsInterceptor(metrics)),
              eventLoops));
      List<BindableService> addonsServices = new ArrayList<>();
      addonsServices.add(new AddonsIdentityService(config));
      addonsServices.addAll(new ReclaimSpaceService(reclaimer, metrics).services());
      addonsServices.add(new ReplicationService(volumes.roles()));
      if (addons.endpoint() != null) {
        servers.add(
            GrpcServer.onSocket(
                UnixSockets.path(addons.endpoint()), addonsServices, measured, eventLoops));
      }
      if (addons.port() > 0) {
        List<BindableService> portServices = new ArrayList<>(addonsServices);
        Map<String, Set<String>> peerMethods = Map.of();
        String pull = PeerCopyGrpc.getPullMethod().getFullMethodName();
        if (peers.acceptedAccount() != null) {
          portServices.add(new PeerModifyService(volumes));
          // For the operator (an allowed account), not for peers: it makes them pull.
          portServices.add(new MoveCopyService(volumes));
          ClaimSources claims = new ClaimSources(api, config.driverName());
          portServices.add(
              new PeerCopyService(
                  volumes.pointInTime(),
                  new SnapshotMetadata(catalog, layout, config.nodeId()),
                  claims,
                  new ReplicaEntitlement(
                      catalog, claims, lookup == null ? null : lookup.pods(), config.nodeId()),
                  config.nodeId()));
          peerMethods =
              Map.of(
                  ControllerGrpc.getControllerModifyVolumeMethod().getFullMethodName(),
                  Set.of(peers.acceptedAccount()),
                  pull,
                  Set.of(peers.acceptedAccount()));
        }
        // 0 until a token arrives, and while none of the cluster's keys could be read (logged)
        metrics.gauge("thinvol_token_signing_keys", () -> verifier.signingKeys().count());
        servers.add(
            GrpcServer.onTlsPort(
                addons.port(),
                addons.tlsCertificate(),
                addons.tlsKey(),
                portServices,
                List.of(
                    new BearerTokenInterceptor(
                        new TokenAuthenticator(verifier, addons.tokenAudience(), Clock.systemUTC()),
                        addons.allowedServiceAccounts(),
                        peerMethods,
                        Set.of(pull)),
                    new MetricsInterceptor(metrics),
                    new CallerAddress()),
                eventLoops));
      }
    } catch (IOException | RuntimeException e) {
      servers.forEach(GrpcServer::close);
      eventLoops.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      lock.close();
      throw e;
    }
    return new Driver(servers, eventLoops, metrics, config, lock, dataDir);
  }

  /** Convenience for a driver without CSI-Addons endpoints. */
  public static Driver start(DriverConfig config) throws IOException {
    return start(config, AddonsConfig.socketOnly(null), null);
  }

  /**
   * Serves /healthz (alive while the gRPC servers serve), /readyz (not ready, saying why, while the
   * data dir cannot take images or is full) and /metrics on {@code port}; the caller closes it.
   */
  public HttpEndpoints serveHttp(int port) throws IOException {
    return HttpEndpoints.start(
        port,
        () -> servers.stream().allMatch(GrpcServer::isServing),
        () -> Optional.ofNullable(dataDir.state().problem()).orElse(""),
        metrics);
  }

  /** The state of the data dir {@code config} names, read without opening it. */
  public static DataDirHealth dataDirHealth(DriverConfig config) {
    return new DataDirHealth(
        config.dataDir(),
        new HostTools(new ProcessCommandRunner()),
        new DataDirUsability(config.dataDir(), config.dedicatedMount()));
  }

  public void awaitTermination() throws InterruptedException {
    servers.get(0).awaitTermination();
  }

  @Override
  public void close() {
    servers.forEach(GrpcServer::close);
    eventLoops.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    try {
      lock.close();
    } catch (IOException e) {
      // the kernel releases the lock with the process anyway
    }
  }
}
