package io.lbk8s.install;

import io.lbk8s.bgp.PeerSpec;
import io.lbk8s.peers.PeerSettings;
import io.lbk8s.version.BuildVersion;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Everything the rendered manifests depend on; the same knobs as the Helm chart's values.yaml.
 *
 * @param addresses        the pool's ranges; empty renders no IPAddressPool / L2Advertisement
 * @param speakerNetAdmin  also grant CAP_NET_ADMIN, only needed for receive buffers beyond the system limit
 * @param speakerArpInKernel also grant CAP_BPF and CAP_NET_ADMIN, so the speaker answers ARP in the kernel (XDP)
 * @param peerPort         the UDP port of the speakers' failure detector (heartbeats between nodes); 0 turns it off
 * @param bgpListenPort    the TCP port on which the speakers take their BGP routers' connections; 0 only connects out
 * @param controllerReplicas how many controllers run: one leads (a Lease), the others stand by to take over
 * @param bgpPeers         routers the nodes peer with: a BGPPeer each, and a BGPAdvertisement of the pool to them
 */
public record InstallValues(
        String namespace,
        String image,
        String imagePullPolicy,
        List<String> addresses,
        String poolName,
        Optional<String> lbClass,
        boolean ignoreExcludeLb,
        boolean speakerNetAdmin,
        boolean speakerArpInKernel,
        int metricsPort,
        int peerPort,
        int bgpListenPort,
        int controllerReplicas,
        Resources controllerResources,
        Resources speakerResources,
        List<BgpPeerOption> bgpPeers) {

    public static final String DEFAULT_NAMESPACE = "lbk8s-system";
    public static final String IMAGE_REPOSITORY = "ghcr.io/lbk8s/lbk8s";
    /** The reference design's Talos-on-Docker network (10.5.0.0/24): what a client-side dry run renders. */
    public static final List<String> EXAMPLE_ADDRESSES = List.of("10.5.0.200-10.5.0.250");
    /** The speakers' heartbeat port (UDP, between nodes); 0 turns the failure detector off. */
    public static final int DEFAULT_PEER_PORT = PeerSettings.DEFAULT_PORT;
    /** BGP's own port, where routers connect to their neighbours; 0 makes the speakers only connect out. */
    public static final int DEFAULT_BGP_LISTEN_PORT = PeerSpec.PORT;
    /** A leader and a standby: addresses keep being assigned while one controller's node is down. */
    public static final int DEFAULT_CONTROLLER_REPLICAS = 2;

    /** Requests and memory limit; no CPU limit, so that a busy node does not throttle ARP answers. */
    public record Resources(String cpuRequest, String memoryRequest, String memoryLimit) {}

    public InstallValues {
        addresses = List.copyOf(addresses);
        bgpPeers = List.copyOf(bgpPeers);
    }

    public static InstallValues defaults() {
        return new InstallValues(
                DEFAULT_NAMESPACE,
                IMAGE_REPOSITORY + ":" + BuildVersion.read().orElse("latest"),
                "IfNotPresent",
                EXAMPLE_ADDRESSES,
                "default",
                Optional.empty(),
                false,
                false,
                false,
                7472,
                DEFAULT_PEER_PORT,
                DEFAULT_BGP_LISTEN_PORT,
                DEFAULT_CONTROLLER_REPLICAS,
                new Resources("50m", "96Mi", "256Mi"),
                new Resources("50m", "96Mi", "256Mi"),
                List.of());
    }

    public InstallValues withNamespace(String value) {
        return copyWith(copy -> copy.namespace = value);
    }

    public InstallValues withImage(String value) {
        return copyWith(copy -> copy.image = value);
    }

    public InstallValues withAddresses(List<String> value) {
        return copyWith(copy -> copy.addresses = value);
    }

    public InstallValues withPoolName(String value) {
        return copyWith(copy -> copy.poolName = value);
    }

    public InstallValues withLbClass(Optional<String> value) {
        return copyWith(copy -> copy.lbClass = value);
    }

    public InstallValues withIgnoreExcludeLb(boolean value) {
        return copyWith(copy -> copy.ignoreExcludeLb = value);
    }

    public InstallValues withSpeakerNetAdmin(boolean value) {
        return copyWith(copy -> copy.speakerNetAdmin = value);
    }

    public InstallValues withSpeakerArpInKernel(boolean value) {
        return copyWith(copy -> copy.speakerArpInKernel = value);
    }

    public InstallValues withPeerPort(int value) {
        return copyWith(copy -> copy.peerPort = value);
    }

    public InstallValues withBgpListenPort(int value) {
        return copyWith(copy -> copy.bgpListenPort = value);
    }

    public InstallValues withControllerReplicas(int value) {
        return copyWith(copy -> copy.controllerReplicas = value);
    }

    public InstallValues withBgpPeers(List<BgpPeerOption> value) {
        return copyWith(copy -> copy.bgpPeers = value);
    }

    /** The one copy every wither makes: all components as they are, but for what {@code change} sets. */
    private InstallValues copyWith(Consumer<Copy> change) {
        Copy copy = new Copy(this);
        change.accept(copy);
        return copy.values();
    }

    /** The components, each settable: a record's components are final. */
    private static final class Copy {
        private String namespace;
        private String image;
        private String imagePullPolicy;
        private List<String> addresses;
        private String poolName;
        private Optional<String> lbClass;
        private boolean ignoreExcludeLb;
        private boolean speakerNetAdmin;
        private boolean speakerArpInKernel;
        private int metricsPort;
        private int peerPort;
        private int bgpListenPort;
        private int controllerReplicas;
        private Resources controllerResources;
        private Resources speakerResources;
        private List<BgpPeerOption> bgpPeers;

        private Copy(InstallValues from) {
            namespace = from.namespace;
            image = from.image;
            imagePullPolicy = from.imagePullPolicy;
            addresses = from.addresses;
            poolName = from.poolName;
            lbClass = from.lbClass;
            ignoreExcludeLb = from.ignoreExcludeLb;
            speakerNetAdmin = from.speakerNetAdmin;
            speakerArpInKernel = from.speakerArpInKernel;
            metricsPort = from.metricsPort;
            peerPort = from.peerPort;
            bgpListenPort = from.bgpListenPort;
            controllerReplicas = from.controllerReplicas;
            controllerResources = from.controllerResources;
            speakerResources = from.speakerResources;
            bgpPeers = from.bgpPeers;
        }

        private InstallValues values() {
            return new InstallValues(
                    namespace,
                    image,
                    imagePullPolicy,
                    addresses,
                    poolName,
                    lbClass,
                    ignoreExcludeLb,
                    speakerNetAdmin,
                    speakerArpInKernel,
                    metricsPort,
                    peerPort,
                    bgpListenPort,
                    controllerReplicas,
                    controllerResources,
                    speakerResources,
                    bgpPeers);
        }
    }
}
