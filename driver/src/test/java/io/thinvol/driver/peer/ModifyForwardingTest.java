package io.thinvol.driver.peer;

import static io.thinvol.driver.GrpcAssertions.assertCode;
import static io.thinvol.driver.GrpcAssertions.message;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import csi.v1.ControllerGrpc;
import csi.v1.ControllerModifyVolumeRequest;
import csi.v1.CreateVolumeRequest;
import csi.v1.VolumeCapability;
import csiaddons.reclaimspace.ControllerReclaimSpaceRequest;
import csiaddons.reclaimspace.ReclaimSpaceControllerGrpc;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.thinvol.driver.LoopIoModes;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.client.CsiClient;
import io.thinvol.driver.host.LoopDevice;
import io.thinvol.driver.host.LoopDevices;
import io.thinvol.driver.host.ProcessCommandRunner;
import io.thinvol.driver.preflight.DataFiles;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * ControllerModifyVolume sent to one node's driver (where the leader-elected external-resizer runs)
 * for a volume of another node: forwarded over the CSI-Addons TLS port to the driver there, which
 * switches its loop device, on real loop devices in two driver processes.
 */
@EnableKubernetesMockClient(https = false)
class ModifyForwardingTest {

  private static final long MIB = 1L << 20;
  private static final VolumeCapability EXT4 = Capabilities.mount("ext4");

  KubernetesMockServer server;

  private PeerDrivers nodes;
  private NodeVolumes volumes;
  private final LoopDevices loops = new LoopDevices(new ProcessCommandRunner());

  @BeforeEach
  void start() throws Exception {
    nodes = new PeerDrivers(server);
    volumes = new NodeVolumes(nodes, EXT4);
  }

  @AfterEach
  void stop() throws Exception {
    if (nodes != null) {
      nodes.close();
    }
  }

  @Test
  void aModifySentToNodeAForAVolumeOnNodeBSwitchesNodeBsLoopDeviceAndKeepsItsData()
      throws Exception {
    String id = create("node-b", "mounted", "buffered");
    nodes.persistentVolumes(Map.of(id, "node-b"));
    Path file = volumes.stageAndPublish("node-b", id).resolve("data.bin");
    String data = DataFiles.writeRandom(file, 8 * MIB);
    assertThat(deviceMode("node-b", id)).isEqualTo("buffered");

    modify("node-a", id, "direct");
    assertThat(deviceMode("node-b", id)).isEqualTo("direct");
    assertThat(LoopIoModes.losetupReportsDirectIo(device("node-b", id).path())).isTrue();
    assertThat(recordedMode("node-b", id)).isEqualTo("direct");
    modify("node-a", id, "direct"); // idempotent
    assertThat(deviceMode("node-b", id)).isEqualTo("direct");
    assertThat(DataFiles.sha256(file)).isEqualTo(data);

    modify("node-a", id, "buffered");
    assertThat(deviceMode("node-b", id)).isEqualTo("buffered");
    assertThat(LoopIoModes.losetupReportsDirectIo(device("node-b", id).path())).isFalse();

    // Read back from the image, not from a cache: unstaging drops the filesystem's pages.
    volumes.unpublishAndUnstage("node-b", id);
    assertThat(DataFiles.sha256(volumes.stageAndPublish("node-b", id).resolve("data.bin")))
        .isEqualTo(data);
    assertThat(deviceMode("node-b", id)).isEqualTo("buffered");
    volumes.unpublishAndUnstage("node-b", id);
  }

  @Test
  void aVolumeNoPersistentVolumeNamesIsNotFound() {
    String id = create("node-b", "unlisted", "buffered");
    nodes.persistentVolumes(Map.of());
    assertThat(message(assertCode(Status.Code.NOT_FOUND, () -> modify("node-a", id, "direct"))))
        .contains(id)
        .contains("no PersistentVolume");
    assertThat(recordedMode("node-b", id)).isEqualTo("buffered");
  }

  @Test
  void aPeerThatIsDownIsUnavailableNamingItsNodeAndPodAndTheRetryWorksOnceItIsBack()
      throws Exception {
    String id = create("node-b", "down", "buffered");
    nodes.persistentVolumes(Map.of(id, "node-b"));
    nodes.stop("node-b");

    assertThat(message(assertCode(Status.Code.UNAVAILABLE, () -> modify("node-a", id, "direct"))))
        .contains("node node-b")
        .contains("pod thinvol-test-node-node-b")
        .contains("127.0.0.1:" + nodes.port("node-b"));

    nodes.start("node-b");
    modify("node-a", id, "direct");
    assertThat(recordedMode("node-b", id)).isEqualTo("direct");
  }

  @Test
  void aForwardWithATokenTheClusterRefusesIsUnauthenticatedAndChangesNothing() throws Exception {
    String id = create("node-b", "forged", "buffered");
    nodes.persistentVolumes(Map.of(id, "node-b"));
    Path file = volumes.stageAndPublish("node-b", id).resolve("data.bin");
    String data = DataFiles.writeRandom(file, 4 * MIB);

    nodes.writeToken("node-a", nodes.forgedToken());
    assertThat(
            message(assertCode(Status.Code.UNAUTHENTICATED, () -> modify("node-a", id, "direct"))))
        .contains("node node-b");
    assertThat(deviceMode("node-b", id)).isEqualTo("buffered");

    // The kubelet rotates the token; the next forward reads the new one.
    nodes.writeToken("node-a", nodes.nodeToken());
    modify("node-a", id, "direct");
    assertThat(deviceMode("node-b", id)).isEqualTo("direct");
    assertThat(DataFiles.sha256(file)).isEqualTo(data);
    volumes.unpublishAndUnstage("node-b", id);
  }

  @Test
  void theTlsPortAcceptsTheNodeAccountForModifyVolumeOnlyAndNeverForwardsAgain() throws Exception {
    String onB = create("node-b", "narrow", "buffered");
    String onA = create("node-a", "elsewhere", "buffered");
    nodes.persistentVolumes(Map.of(onB, "node-b", onA, "node-a"));

    ManagedChannel intruder = channelToNodeB(nodes.tokenOf(PeerDrivers.NAMESPACE + ":intruder"));
    ManagedChannel node = channelToNodeB(nodes.nodeToken());
    try {
      assertCode(
          Status.Code.PERMISSION_DENIED,
          () -> ControllerGrpc.newBlockingStub(intruder).controllerModifyVolume(request(onB)));
      assertThat(recordedMode("node-b", onB)).isEqualTo("buffered");
      // The node's account may forward a modification, and do nothing else here.
      assertCode(
          Status.Code.PERMISSION_DENIED,
          () ->
              ReclaimSpaceControllerGrpc.newBlockingStub(node)
                  .controllerReclaimSpace(
                      ControllerReclaimSpaceRequest.newBuilder().setVolumeId(onB).build()));
      // A forwarded call for a volume node-b does not hold is answered there, not sent on.
      assertThat(
              message(
                  assertCode(
                      Status.Code.NOT_FOUND,
                      () ->
                          ControllerGrpc.newBlockingStub(node)
                              .controllerModifyVolume(request(onA)))))
          .contains("does not exist on this node");
      assertThat(recordedMode("node-a", onA)).isEqualTo("buffered");
      ControllerGrpc.newBlockingStub(node).controllerModifyVolume(request(onB));
      assertThat(recordedMode("node-b", onB)).isEqualTo("direct");
    } finally {
      intruder.shutdownNow();
      node.shutdownNow();
    }
  }

  private ManagedChannel channelToNodeB(String token) throws Exception {
    Metadata headers = new Metadata();
    headers.put(
        Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + token);
    return NettyChannelBuilder.forAddress("127.0.0.1", nodes.port("node-b"))
        .sslContext(GrpcSslContexts.forClient().trustManager(nodes.certificate().toFile()).build())
        .overrideAuthority("localhost")
        .intercept(MetadataUtils.newAttachHeadersInterceptor(headers))
        .build();
  }

  private String create(String node, String name, String mode) {
    return csi(node)
        .controller()
        .createVolume(
            CreateVolumeRequest.newBuilder()
                .setName(name)
                .setCapacityRange(csi.v1.CapacityRange.newBuilder().setRequiredBytes(64 * MIB))
                .addVolumeCapabilities(EXT4)
                .putParameters("ioMode", mode)
                .build())
        .getVolume()
        .getVolumeId();
  }

  private static ControllerModifyVolumeRequest request(String id) {
    return ControllerModifyVolumeRequest.newBuilder()
        .setVolumeId(id)
        .putMutableParameters("ioMode", "direct")
        .build();
  }

  private void modify(String node, String id, String mode) {
    csi(node)
        .controller()
        .controllerModifyVolume(
            ControllerModifyVolumeRequest.newBuilder()
                .setVolumeId(id)
                .putMutableParameters("ioMode", mode)
                .build());
  }

  private CsiClient csi(String node) {
    return nodes.driver(node).csi();
  }

  private LoopDevice device(String node, String id) {
    List<LoopDevice> devices = loops.of(nodes.image(node, id));
    assertThat(devices).hasSize(1);
    return devices.get(0);
  }

  private String deviceMode(String node, String id) {
    return LoopIoModes.sysfs(device(node, id));
  }

  private String recordedMode(String node, String id) {
    try {
      return new ObjectMapper().readTree(nodes.meta(node, id).toFile()).get("ioMode").asText();
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
