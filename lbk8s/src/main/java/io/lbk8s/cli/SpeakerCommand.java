package io.lbk8s.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.lbk8s.kube.lean.LeanDecoding;
import io.lbk8s.peers.Membership;
import io.lbk8s.peers.PeerSettings;
import io.lbk8s.speaker.InterfaceChoice;
import io.lbk8s.speaker.Speaker;
import io.lbk8s.speaker.SpeakerSettings;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

@Command(
        name = "speaker",
        mixinStandardHelpOptions = true,
        description = "Answer ARP and NDP for the Service addresses this node leads (run on every node).")
final class SpeakerCommand extends ClusterCommand {
    private static final Logger log = LoggerFactory.getLogger(SpeakerCommand.class);
    private static final Duration MAX_HOLD = Membership.Settings.DEFAULTS.maxHold();

    @Option(names = "--node", description = "This node's name (default: $NODE_NAME).")
    String node;

    @Option(
            names = {"-n", "--namespace"},
            description =
                    "Namespace of the configuration and of the speaker Pods (default: $POD_NAMESPACE, else lbk8s-system).")
    String namespace;

    @Option(
            names = "--pod-name",
            description = "This speaker's Pod, marked not ready on shutdown (default: $POD_NAME).")
    String podName;

    @Option(
            names = "--speaker-selector",
            defaultValue = "app.kubernetes.io/name=lbk8s,app.kubernetes.io/component=speaker",
            description =
                    "Labels of the speaker Pods, whose readiness says which nodes may announce (default: ${DEFAULT-VALUE}).")
    String speakerSelector;

    @Option(
            names = "--lb-class",
            description =
                    "Announce only Services of this loadBalancerClass (default: Services without a class and those of class lbk8s.io/l2).")
    String lbClass;

    @Option(
            names = "--ignore-exclude-lb",
            description = "Let nodes labelled node.kubernetes.io/exclude-from-external-load-balancers announce.")
    boolean ignoreExcludeLb;

    @Option(
            names = "--exclude-interfaces",
            split = ",",
            paramLabel = "REGEX",
            description =
                    "Interfaces never chosen by subnet (regular expressions; default: MetalLB's list: docker, veth, cni, "
                            + "flannel, cali, ...; 'none' for none). Interfaces an L2Advertisement names are always used.")
    List<String> excludeInterfaces;

    @Option(
            names = "--gratuitous-refresh",
            defaultValue = "30s",
            description =
                    "Repeat gratuitous ARP / unsolicited NA this often while announcing; 0 turns it off (default: ${DEFAULT-VALUE}).")
    String gratuitousRefresh;

    @Option(
            names = "--receive-buffer",
            defaultValue = "4194304",
            description =
                    "Receive buffer of the raw sockets in bytes; beyond the system limit it needs CAP_NET_ADMIN (default: ${DEFAULT-VALUE}).")
    int receiveBuffer;

    @Option(
            names = "--arp-in-kernel",
            negatable = true,
            defaultValue = "true",
            fallbackValue = "true",
            description =
                    "Answer ARP in the kernel with an XDP program where CAP_BPF and CAP_NET_ADMIN allow it, else from the "
                            + "raw socket; --no-arp-in-kernel always uses the raw socket (default: ${DEFAULT-VALUE}).")
    boolean arpInKernel;

    @Option(
            names = "--peer-port",
            defaultValue = "" + PeerSettings.DEFAULT_PORT,
            description =
                    "UDP port of the failure detector among speakers, open between nodes; 0 runs without it and judges"
                            + " nodes by the API alone (default: ${DEFAULT-VALUE}).")
    int peerPort;

    @Option(
            names = "--peer-secret",
            defaultValue = PeerSettings.DEFAULT_SECRET,
            description =
                    "Secret in the speaker's namespace whose field \"keys\" authenticates the speakers' messages; created"
                            + " with a random key when missing (default: ${DEFAULT-VALUE}).")
    String peerSecret;

    @Option(
            names = "--peer-interval",
            defaultValue = "50ms",
            description = "How often a speaker sends each peer a heartbeat (default: ${DEFAULT-VALUE}).")
    String peerInterval;

    @Option(
            names = "--peer-timeout",
            defaultValue = "250ms",
            description =
                    "A peer silent this long is dead and its addresses move; at least 4 intervals (default: ${DEFAULT-VALUE}).")
    String peerTimeout;

    @Option(
            names = "--rejoin-hold",
            defaultValue = "2s",
            description =
                    "A node back after a failure is held back this long before it takes addresses again, doubled for"
                            + " every further failure within --flap-window, up to 60s (default: ${DEFAULT-VALUE}).")
    String rejoinHold;

    @Option(
            names = "--flap-window",
            defaultValue = "5m",
            description = "Failures of a node within this window double its rejoin hold (default: ${DEFAULT-VALUE}).")
    String flapWindow;

    @Option(
            names = "--takeover-probe",
            defaultValue = "30ms",
            description =
                    "Before taking an address, listen this long for another MAC answering for it; 0 takes it at once"
                            + " (default: ${DEFAULT-VALUE}).")
    String takeoverProbe;

    @Option(
            names = "--bgp-listen-port",
            defaultValue = "" + SpeakerSettings.DEFAULT_BGP_LISTEN_PORT,
            description =
                    "TCP port on which the routers of this node's BGPPeers may connect to it, so that a session comes"
                            + " back as soon as the router can reach the node; other addresses are refused. 0 only"
                            + " connects out, as does a port another process holds (default: ${DEFAULT-VALUE}).")
    int bgpListenPort;

    @Mixin
    HealthOptions served;

    @Override
    public Integer call() throws Exception {
        SpeakerSettings settings = settings();
        var registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        KubernetesClient client = kube.client(LeanDecoding.serialization());
        Speaker speaker = new Speaker(client, settings, registry);
        var stopped = new CountDownLatch(1);
        try (var health = served.serve(registry, speaker::readiness)) {
            log.info(
                    "lbk8s speaker {} starting on node {}: namespace {}, class {}, metrics on port {}",
                    VersionCommand.version(),
                    settings.node(),
                    settings.configNamespace(),
                    settings.lbClass().orElse("(none) and lbk8s.io/l2"),
                    health.port());
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                log.info("stopping");
                speaker.shutdown();
                speaker.close();
                client.close();
                stopped.countDown();
            }));
            speaker.start();
            stopped.await();
        }
        return 0;
    }

    SpeakerSettings settings() {
        String nodeName = Optional.ofNullable(node)
                .or(() -> Optional.ofNullable(System.getenv("NODE_NAME")))
                .filter(s -> !s.isBlank())
                .orElseThrow(
                        () -> new ParameterException(
                                spec.commandLine(),
                                "the speaker needs its node's name: pass --node or set NODE_NAME (the DaemonSet sets it from spec.nodeName)"));
        String ns = roleNamespace(namespace);
        Optional<String> pod = Optional.ofNullable(podName)
                .or(() -> Optional.ofNullable(System.getenv("POD_NAME")))
                .filter(s -> !s.isBlank());
        Duration refresh = DurationFlags.parse(spec, "--gratuitous-refresh", gratuitousRefresh);
        if (bgpListenPort < 0 || bgpListenPort > 65_535) {
            throw new ParameterException(
                    spec.commandLine(), "--bgp-listen-port " + bgpListenPort + " is not a TCP port (0 turns it off)");
        }
        if (receiveBuffer < 65_536) {
            throw new ParameterException(
                    spec.commandLine(), "--receive-buffer " + receiveBuffer + " is too small (at least 65536 bytes)");
        }
        return new SpeakerSettings(
                nodeName,
                ns,
                ns,
                pod,
                labels(speakerSelector),
                Optional.ofNullable(lbClass).filter(s -> !s.isBlank()),
                ignoreExcludeLb,
                excluded(),
                SpeakerSettings.DEFAULT_BURST,
                refresh,
                receiveBuffer,
                arpInKernel,
                peers(),
                DurationFlags.parse(spec, "--takeover-probe", takeoverProbe),
                bgpListenPort);
    }

    private PeerSettings peers() {
        Duration hold = DurationFlags.parse(spec, "--rejoin-hold", rejoinHold);
        try {
            Membership.Settings membership = new Membership.Settings(
                    positive("--peer-timeout", peerTimeout),
                    hold,
                    hold.compareTo(MAX_HOLD) > 0 ? hold : MAX_HOLD,
                    DurationFlags.parse(spec, "--flap-window", flapWindow));
            return new PeerSettings(
                    peerPort,
                    positive("--peer-interval", peerInterval),
                    membership,
                    PeerSettings.DEFAULT_CLOCK_WINDOW,
                    peerSecret);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    private Duration positive(String option, String text) {
        Duration d = DurationFlags.parse(spec, option, text);
        if (d.isZero()) {
            throw new ParameterException(spec.commandLine(), option + " must be more than 0");
        }
        return d;
    }

    private Map<String, String> labels(String selector) {
        Map<String, String> labels = new LinkedHashMap<>();
        for (String part : selector.split(",")) {
            String[] kv = part.strip().split("=", 2);
            if (kv.length != 2 || kv[0].isBlank()) {
                throw new ParameterException(
                        spec.commandLine(), "--speaker-selector: \"" + part + "\" is not key=value");
            }
            labels.put(kv[0].strip(), kv[1].strip());
        }
        return labels;
    }

    private List<Pattern> excluded() {
        if (excludeInterfaces == null) {
            return InterfaceChoice.DEFAULT_EXCLUDED;
        }
        if (excludeInterfaces.equals(List.of("none"))) {
            return List.of();
        }
        try {
            return excludeInterfaces.stream().map(Pattern::compile).toList();
        } catch (PatternSyntaxException e) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--exclude-interfaces: " + e.getDescription() + " in \"" + e.getPattern() + "\"");
        }
    }
}
