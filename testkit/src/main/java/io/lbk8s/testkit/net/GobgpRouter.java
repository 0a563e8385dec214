package io.lbk8s.testkit.net;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * GoBGP 3.10 in a namespace: gobgpd with its gRPC API on the namespace's own loopback, queried and driven with the
 * {@code gobgp} CLI. As the upstream router, a {@link GobgpFibSync} copies its best paths into the namespace's FIB,
 * because gobgpd programs no FIB itself and its zebra client (zapi 6 as of FRR 8.1) cannot talk to FRR 8.4's zebra.
 * On a node it stands in for a speaker: {@link #announce} and {@link #withdraw}.
 */
public final class GobgpRouter extends DaemonRouter implements BgpRouter {

    /** Each namespace has its own loopback, so every instance can use gobgpd's default port. */
    static final String API = "127.0.0.1:50051";

    private volatile GobgpFibSync fibSync;

    private GobgpRouter(TestNetwork network, String namespace, RouterConfig config) {
        super(RouterKind.GOBGP, "GoBGP", network, namespace, config);
    }

    /** {@code programsFib}: copy best paths into the namespace's FIB, as a router would; off for a node's speaker. */
    static GobgpRouter start(TestNetwork network, String namespace, RouterConfig config, boolean programsFib) {
        return started(new GobgpRouter(network, namespace, config), router -> {
            RouterDaemons daemons = router.daemons;
            daemons.write("gobgpd.toml", GobgpConfig.toml(config));
            daemons.start("gobgpd", router.gobgpdCommand(false));
            daemons.awaitAnswer(router.gobgpCommand(List.of("global")));
            if (programsFib) {
                router.fibSync = GobgpFibSync.start(router, namespace);
            }
        });
    }

    /**
     * gobgpd killed with SIGKILL, as a crash ends it (its neighbours see their connections closed without a
     * NOTIFICATION), and started again with {@code --graceful-restart}: its OPENs set Restart State (RFC 4724 4.1),
     * and it starts with an empty table that its neighbours fill again. Returns once its CLI answers.
     */
    public void restartGracefully() {
        daemons.kill("gobgpd");
        daemons.start("gobgpd", gobgpdCommand(true));
        daemons.awaitAnswer(gobgpCommand(List.of("global")));
    }

    /** gobgpd in the foreground with this run's config; {@code restarting}: with Restart State in its OPENs. */
    private List<String> gobgpdCommand(boolean restarting) {
        List<String> command = new ArrayList<>(List.of(
                RouterTool.GOBGPD.path(),
                "-f",
                daemons.file("gobgpd.toml").toString(),
                "-t",
                "toml",
                "--api-hosts",
                API,
                "--pprof-disable",
                "--log-plain",
                "-l",
                "info"));
        if (restarting) {
            command.add("--graceful-restart");
        }
        return command;
    }

    /** Any gobgp CLI command against this instance, e.g. {@code gobgp("neighbor")}; its output. */
    public String gobgp(String... arguments) {
        return daemons.cli(gobgpCommand(List.of(arguments)));
    }

    @Override
    public List<RouterSession> sessions() {
        return GobgpJson.sessions(RouterDaemons.json(gobgp("neighbor", "-j")), GobgpLog.lastErrors(daemons.logs()));
    }

    @Override
    public List<RibPath> routes(String prefix) {
        return GobgpJson.paths(prefix, RouterDaemons.json(gobgp("global", "rib", "-a", family(prefix), prefix, "-j")));
    }

    /**
     * Next hops of the paths to {@code prefix} GoBGP keeps as stale: from a peer whose session dropped while both had
     * announced graceful restart (RFC 4724 4.2), kept until the peer's End-of-RIB or its restart time ends.
     */
    public List<InetAddress> staleNextHops(String prefix) {
        return GobgpJson.staleNextHops(
                prefix, RouterDaemons.json(gobgp("global", "rib", "-a", family(prefix), prefix, "-j")));
    }

    /** Every path in its table of one family ({@code ipv4} or {@code ipv6}), by prefix. */
    List<RibPath> allRoutes(String family) {
        return GobgpJson.paths(null, RouterDaemons.json(gobgp("global", "rib", "-a", family, "-j")));
    }

    /** GoBGP has no BFD. */
    @Override
    public List<RouterBfdPeer> bfdPeers() {
        return List.of();
    }

    /** Originates {@code prefix} (e.g. {@code 198.18.7.200/32}) to every peer, next hop itself. */
    public void announce(String prefix) {
        announce(prefix, List.of(), OptionalLong.empty());
    }

    /** As {@link #announce(String)}, with standard communities ({@code 64500:100}) and, for iBGP, a LOCAL_PREF. */
    public void announce(String prefix, List<String> communities, OptionalLong localPref) {
        List<String> command = new ArrayList<>(List.of("global", "rib", "add", "-a", family(prefix), prefix));
        if (!communities.isEmpty()) {
            command.add("community");
            command.add(String.join(",", communities));
        }
        localPref.ifPresent(p -> {
            command.add("local-pref");
            command.add(Long.toString(p));
        });
        gobgp(command.toArray(String[]::new));
    }

    public void withdraw(String prefix) {
        gobgp("global", "rib", "del", "-a", family(prefix), prefix);
    }

    @Override
    void stop() {
        GobgpFibSync sync = fibSync;
        if (sync != null) {
            sync.close();
        }
        daemons.stopAll();
    }

    private List<String> gobgpCommand(List<String> arguments) {
        String[] hostPort = API.split(":");
        List<String> command = new ArrayList<>(List.of(RouterTool.GOBGP.path(), "-u", hostPort[0], "-p", hostPort[1]));
        command.addAll(arguments);
        return command;
    }

    static String family(String prefix) {
        return prefix.contains(":") ? "ipv6" : "ipv4";
    }
}
