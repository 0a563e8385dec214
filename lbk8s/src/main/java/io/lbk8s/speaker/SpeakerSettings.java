package io.lbk8s.speaker;

import io.lbk8s.peers.PeerSettings;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * How a speaker runs.
 *
 * @param node               this node's name (from $NODE_NAME, the downward API)
 * @param configNamespace    where IPAddressPools, L2Advertisements and the lbk8s-config ConfigMap live
 * @param podNamespace       where the speaker Pods run (their readiness says which nodes may announce)
 * @param podName            this speaker's own Pod, marked not ready on shutdown so the next node takes over at once
 * @param speakerPodLabels   labels that pick the speaker Pods
 * @param takeoverBurst      when to send gratuitous ARP / unsolicited NA after taking an address (from the takeover)
 * @param gratuitousRefresh  how often to repeat them while announcing; zero turns the refresh off
 * @param receiveBufferBytes the raw sockets' receive queue
 * @param arpInKernel        try answering ARP with an XDP program (falls back to the raw socket when refused)
 * @param peers              the failure detector among speakers
 * @param takeoverProbe      how long to listen for another MAC answering for an address before taking it; zero takes
 *                           it without asking
 * @param bgpListenPort      the TCP port on which BGP peers may connect to this node; 0 only connects out
 */
public record SpeakerSettings(
        String node,
        String configNamespace,
        String podNamespace,
        Optional<String> podName,
        Map<String, String> speakerPodLabels,
        Optional<String> lbClass,
        boolean ignoreExcludeLabel,
        List<Pattern> excludedInterfaces,
        List<Duration> takeoverBurst,
        Duration gratuitousRefresh,
        int receiveBufferBytes,
        boolean arpInKernel,
        PeerSettings peers,
        Duration takeoverProbe,
        int bgpListenPort) {

    public static final List<Duration> DEFAULT_BURST =
            List.of(Duration.ZERO, Duration.ofMillis(200), Duration.ofSeconds(1));
    /** Long enough for an answer from the raw socket of a busy node; a kernel (XDP) answer takes microseconds. */
    public static final Duration DEFAULT_TAKEOVER_PROBE = Duration.ofMillis(30);
    /**
     * How long an address handed over by a live node (a graceful stop, a node readmitted after a failure, a change in
     * the API) stays silent before the new node answers: the probe listens this long, so the old node's last answer
     * is at least 100 ms before the new node's first and no client sees two MACs within 100 ms.
     */
    public static final Duration HANDOVER_QUIET = Duration.ofMillis(130);
    /** BGP's own port (RFC 4271 8.2.1), where routers connect to their neighbours. */
    public static final int DEFAULT_BGP_LISTEN_PORT = 179;

    public SpeakerSettings {
        speakerPodLabels = Map.copyOf(speakerPodLabels);
        excludedInterfaces = List.copyOf(excludedInterfaces);
        takeoverBurst = List.copyOf(takeoverBurst);
    }
}
