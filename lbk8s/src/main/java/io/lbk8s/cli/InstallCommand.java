package io.lbk8s.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.lbk8s.install.Applier;
import io.lbk8s.install.BgpPeerOption;
import io.lbk8s.install.InstallProblem;
import io.lbk8s.install.InstallValues;
import io.lbk8s.install.Installer;
import io.lbk8s.install.ManifestOutput;
import io.lbk8s.install.Manifests;
import io.lbk8s.install.Reachability;
import io.lbk8s.install.Rollout;
import io.lbk8s.install.Verifier;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

@Command(
        name = "install",
        mixinStandardHelpOptions = true,
        description = {
            "Install lbk8s into the cluster: namespace, CRDs, RBAC, controller, speakers and an address pool.",
            "Without --addresses, a free range is picked in the nodes' network.",
            "Running it again with the same flags changes nothing; flags you leave out take their defaults "
                    + "(only the pool keeps its addresses)."
        })
final class InstallCommand extends ClusterCommand {

    enum DryRun {
        none,
        client,
        server
    }

    @Option(
            names = {"-n", "--namespace"},
            defaultValue = InstallValues.DEFAULT_NAMESPACE,
            description = "Namespace to install into (default: ${DEFAULT-VALUE}).")
    String namespace;

    @Option(
            names = "--addresses",
            split = ",",
            paramLabel = "RANGE",
            description =
                    "The pool's addresses (10.5.0.200-10.5.0.250, 10.5.0.192/27, fd00::c8-fd00::fa; comma-separated). "
                            + "Default: a free range near the top of the nodes' network (or the existing pool's, on a re-run).")
    List<String> addresses = List.of();

    @Option(
            names = "--pool-name",
            defaultValue = "default",
            description = "Name of the IPAddressPool and L2Advertisement (default: ${DEFAULT-VALUE}).")
    String poolName;

    @Option(
            names = "--image",
            description = "Container image (default: " + InstallValues.IMAGE_REPOSITORY + ":<this version>).")
    String image;

    @Option(
            names = "--lb-class",
            description = "Serve only Services of this loadBalancerClass (default: no class and lbk8s.io/l2).")
    String lbClass;

    @Option(
            names = "--ignore-exclude-lb",
            description =
                    "Let nodes labelled node.kubernetes.io/exclude-from-external-load-balancers announce (single-node Talos).")
    boolean ignoreExcludeLb;

    @Option(
            names = "--speaker-net-admin",
            description = "Also grant the speaker CAP_NET_ADMIN (only for receive buffers beyond the system limit).")
    boolean speakerNetAdmin;

    @Option(
            names = "--speaker-arp-in-kernel",
            description =
                    "Also grant the speaker CAP_BPF and CAP_NET_ADMIN, so that it answers ARP in the kernel (XDP), as fast as the "
                            + "kernel answers for the node's own address; without them it answers from a raw socket.")
    boolean speakerArpInKernel;

    @Option(
            names = "--peer-port",
            defaultValue = "" + InstallValues.DEFAULT_PEER_PORT,
            paramLabel = "PORT",
            description =
                    "UDP port of the speakers' failure detector, between nodes (default: ${DEFAULT-VALUE}; 0 turns it off).")
    int peerPort;

    @Option(
            names = "--bgp-listen-port",
            defaultValue = "" + InstallValues.DEFAULT_BGP_LISTEN_PORT,
            paramLabel = "PORT",
            description =
                    "TCP port on which the speakers take their BGP routers' connections (default: ${DEFAULT-VALUE};"
                            + " 0: they only connect out, e.g. beside another BGP daemon on the nodes).")
    int bgpListenPort;

    @Option(
            names = "--controller-replicas",
            defaultValue = "" + InstallValues.DEFAULT_CONTROLLER_REPLICAS,
            paramLabel = "N",
            description = "How many controllers run: one leads, the others stand by to take over within seconds "
                    + "(default: ${DEFAULT-VALUE}; 1 runs a single controller).")
    int controllerReplicas;

    @Option(
            names = "--dry-run",
            arity = "0..1",
            fallbackValue = "client",
            defaultValue = "none",
            description =
                    "Print the manifests, apply nothing. client (the default when given): no cluster access, the example "
                            + "range unless --addresses; server: read the cluster to choose the range.")
    DryRun dryRun;

    @Option(
            names = {"-o", "--output"},
            defaultValue = "yaml",
            description = "With --dry-run: yaml or json (default: ${DEFAULT-VALUE}).")
    ManifestOutput.Format output;

    @Option(
            names = "--print-example",
            description = "Print the example (whoami behind a LoadBalancer Service) instead; implies --dry-run.")
    boolean printExample;

    @Option(
            names = "--wait",
            arity = "0..1",
            defaultValue = "true",
            fallbackValue = "true",
            description =
                    "Wait for the controller and the speakers to be ready (default: ${DEFAULT-VALUE}; --wait=false to skip).")
    boolean waitForRollout;

    @Option(
            names = "--timeout",
            defaultValue = "3m",
            description = "How long to wait for the rollout (default: ${DEFAULT-VALUE}).")
    String timeout;

    @Option(
            names = "--verify",
            description = "After the rollout, create a test LoadBalancer Service, wait for its address, "
                    + "check it answers from here, and delete it.")
    boolean verify;

    @Option(
            names = "--verify-timeout",
            defaultValue = "60s",
            description = "How long --verify waits for the address (default: ${DEFAULT-VALUE}).")
    String verifyTimeout;

    @Option(
            names = "--bgp-peer",
            paramLabel = "PEER",
            description =
                    "A BGP router the nodes peer with, ADDRESS,asn=PEER_ASN[,my-asn=MY_ASN][,name=NAME] "
                            + "(my-asn default 64512); repeatable. Adds a BGPPeer per router and a BGPAdvertisement of the pool.")
    List<String> bgpPeers = List.of();

    @Option(
            names = "--docker-socket",
            defaultValue = "/var/run/docker.sock",
            description =
                    "Docker Engine socket, read (if present) for the node containers' network (default: ${DEFAULT-VALUE}).")
    Path dockerSocket;

    /** How --verify checks the address answers; tests replace it. */
    Reachability reachability = Reachability.tcp(Duration.ofSeconds(2));

    @Override
    public Integer call() throws InterruptedException {
        return run(spec.commandLine().getOut(), spec.commandLine().getErr());
    }

    /** A flag's value install cannot use: exit code 2 and the sentence, like any bad flag, before anything is read. */
    private ParameterException badFlag(String sentence) {
        return new ParameterException(spec.commandLine(), sentence);
    }

    private int run(PrintWriter out, PrintWriter err) throws InterruptedException {
        Duration rolloutTimeout = DurationFlags.parse(spec, "--timeout", timeout);
        Duration addressTimeout = DurationFlags.parse(spec, "--verify-timeout", verifyTimeout);
        if (peerPort < 0 || peerPort > 65535) {
            throw badFlag("--peer-port: " + peerPort + " is outside 1-65535 (0 turns the failure detector off)");
        }
        if (bgpListenPort < 0 || bgpListenPort > 65535) {
            throw badFlag(
                    "--bgp-listen-port: " + bgpListenPort + " is outside 1-65535 (0: the speakers only connect out)");
        }
        if (controllerReplicas < 1) {
            throw badFlag("--controller-replicas: " + controllerReplicas
                    + " is below 1 (without a controller no Service gets " + "an address)");
        }
        List<BgpPeerOption> peers;
        try {
            peers = BgpPeerOption.parseAll(bgpPeers);
        } catch (InstallProblem problem) {
            throw badFlag(problem.getMessage());
        }
        InstallValues values = InstallValues.defaults()
                .withNamespace(namespace)
                .withPoolName(poolName)
                .withLbClass(Optional.ofNullable(lbClass).filter(s -> !s.isBlank()))
                .withIgnoreExcludeLb(ignoreExcludeLb)
                .withSpeakerNetAdmin(speakerNetAdmin)
                .withSpeakerArpInKernel(speakerArpInKernel)
                .withPeerPort(peerPort)
                .withBgpListenPort(bgpListenPort)
                .withControllerReplicas(controllerReplicas)
                .withBgpPeers(peers);
        if (image != null) {
            values = values.withImage(image);
        }
        if (printExample) {
            out.print(ManifestOutput.write(Manifests.example(), output));
            return 0;
        }
        if (dryRun == DryRun.client) {
            if (addresses.isEmpty()) {
                err.println(
                        "note: no --addresses and no cluster access (--dry-run=client): the pool is the example range "
                                + String.join(",", InstallValues.EXAMPLE_ADDRESSES)
                                + "; --dry-run=server picks one for your cluster");
            } else {
                values = values.withAddresses(addresses);
            }
            out.print(ManifestOutput.write(Manifests.render(values), output));
            return 0;
        }
        if (dryRun == DryRun.none && spec.commandLine().getParseResult().hasMatchedOption("--output")) {
            throw badFlag("-o/--output prints manifests and needs --dry-run");
        }
        try (KubernetesClient client = kube.client()) {
            Installer installer = new Installer(client, d -> Thread.sleep(d.toMillis()));
            Installer.Plan plan = installer.plan(new Installer.Request(values, addresses, dockerSocket));
            String say = "cluster: " + plan.distribution().displayName() + ", "
                    + plan.nodes().size() + " node(s); addresses "
                    + String.join(",", plan.values().addresses()) + " (" + plan.addressesSource() + ")";
            if (dryRun == DryRun.server) {
                err.println(say);
                plan.notes().forEach(err::println);
                plan.warnings().forEach(w -> err.println("warning: " + w));
                out.print(ManifestOutput.write(plan.objects(), output));
                return 0;
            }
            out.println(say);
            plan.notes().forEach(out::println);
            List<Applier.Result> results = installer.apply(plan, out::println);
            long changed = results.stream().filter(Applier.Result::wrote).count();
            long kept = results.stream()
                    .filter(r -> r.action() == Applier.Action.kept && !r.wrote())
                    .count();
            String keptText = kept == 0 ? "" : ", " + kept + " kept as they are (not made by lbk8s install)";
            out.println(
                    changed == 0
                            ? "nothing changed: lbk8s is installed as asked" + keptText
                            : changed + " object(s) created or changed, " + (results.size() - changed - kept)
                                    + " unchanged" + keptText);
            plan.warnings().forEach(w -> err.println("warning: " + w));
            if (waitForRollout || verify) {
                List<Rollout.Progress> last = Rollout.await(
                        () -> installer.progress(namespace),
                        rolloutTimeout,
                        Duration.ofSeconds(1),
                        d -> Thread.sleep(d.toMillis()),
                        out::println);
                if (!last.stream().allMatch(Rollout.Progress::done)) {
                    err.println("error: not ready after " + timeout + ": "
                            + String.join(
                                    "; ",
                                    last.stream()
                                            .filter(p -> !p.done())
                                            .map(Rollout.Progress::toString)
                                            .toList())
                            + " (see kubectl -n " + namespace + " get pods; --timeout waits longer)");
                    return 1;
                }
                out.println("lbk8s is running");
            }
            if (verify) {
                var outcome = new Verifier(client, reachability)
                        .verify(
                                namespace,
                                plan.values().lbClass(),
                                addressTimeout,
                                d -> Thread.sleep(d.toMillis()),
                                out::println);
                switch (outcome) {
                    case Verifier.Outcome.NoAddress(String why) -> {
                        err.println("error: verify failed: " + why);
                        return 1;
                    }
                    case Verifier.Outcome.Verified(var ips, Reachability.Verdict.Answered(String how)) ->
                        out.println("verify: ok, " + ips.getFirst() + " answers (" + how + ")");
                    case Verifier.Outcome.Verified(var ips, Reachability.Verdict.NoAnswer(String why)) ->
                        err.println("warning: verify: " + ips.getFirst()
                                + " was assigned but did not answer from here (" + why
                                + "); this machine may not be on the node network (Docker Desktop, a remote cluster)");
                }
            }
            return 0;
        }
    }
}
