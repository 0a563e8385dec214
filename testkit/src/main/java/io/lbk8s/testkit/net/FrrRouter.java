package io.lbk8s.testkit.net;

import io.lbk8s.testkit.TempFiles;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * FRR 8.4 as a router: zebra (which programs the namespace's FIB), bgpd and bfdd from {@code /usr/lib/frr}, each with
 * its own config file, pid file and vty socket in the run's directory, queried with {@code vtysh --vty_socket}.
 */
public final class FrrRouter extends DaemonRouter implements BgpRouter {

    static final Path DAEMONS = Path.of("/usr/lib/frr");

    /**
     * Root, with the frrvty group: FRR refuses to start as a user outside its vty group, and as its own frr user it
     * could not reach the run's directory (a private temporary directory).
     */
    private static final List<String> RUN_AS = List.of("-u", "root", "-g", "frrvty");

    private FrrRouter(TestNetwork network, String namespace, RouterConfig config) {
        super(RouterKind.FRR, "FRR", network, namespace, config);
    }

    static FrrRouter start(TestNetwork network, String namespace, RouterConfig config) {
        return started(new FrrRouter(network, namespace, config), router -> {
            RouterDaemons daemons = router.daemons;
            String hostname = namespace;
            daemons.write("zebra.conf", FrrConfig.zebra(hostname));
            daemons.write("bfdd.conf", FrrConfig.bfdd(config, hostname));
            daemons.write("bgpd.conf", FrrConfig.bgpd(config, hostname));
            daemons.start("zebra", router.daemon("zebra"));
            router.awaitFile(daemons.runFile("zserv.api"));
            List<String> bfdd = new ArrayList<>(router.daemon("bfdd"));
            bfdd.addAll(List.of("--bfdctl", daemons.runFile("bfdd.sock").toString()));
            daemons.start("bfdd", bfdd);
            daemons.start("bgpd", router.daemon("bgpd"));
            daemons.awaitAnswer(router.vtyshCommand("show bgp summary json"));
            daemons.awaitAnswer(router.vtyshCommand("show bfd peers json"));
        });
    }

    /** Any vtysh command, e.g. {@code show bgp summary}; its output. */
    public String vtysh(String... commands) {
        return daemons.cli(vtyshCommand(commands));
    }

    @Override
    public List<RouterSession> sessions() {
        return FrrJson.sessions(RouterDaemons.json(vtysh("show bgp neighbors json")));
    }

    @Override
    public List<RibPath> routes(String prefix) {
        String family = prefix.contains(":") ? "ipv6" : "ipv4";
        return FrrJson.paths(prefix, RouterDaemons.json(vtysh("show bgp " + family + " unicast " + prefix + " json")));
    }

    /**
     * Next hops of the paths to {@code prefix} FRR keeps as stale: from a peer whose session dropped while it had
     * announced graceful restart (RFC 4724 4.2), still forwarded until the peer is back or its restart time ends.
     */
    public List<InetAddress> staleNextHops(String prefix) {
        String family = prefix.contains(":") ? "ipv6" : "ipv4";
        return FrrJson.staleNextHops(RouterDaemons.json(vtysh("show bgp " + family + " unicast " + prefix + " json")));
    }

    /** The Restart State bit of {@code neighbor}'s last OPEN as FRR read it; empty before any OPEN with graceful restart. */
    public Optional<Boolean> restartStateReceived(InetAddress neighbor) {
        String address = Addressing.text(neighbor);
        return FrrJson.restartState(RouterDaemons.json(vtysh("show bgp neighbors " + address + " json"))
                .path(address));
    }

    /** Whether FRR has received {@code neighbor}'s End-of-RIB for IPv4 unicast since their session came up. */
    public boolean endOfRibReceived(InetAddress neighbor) {
        String address = Addressing.text(neighbor);
        return FrrJson.endOfRibReceived(
                RouterDaemons.json(vtysh("show bgp neighbors " + address + " json"))
                        .path(address),
                "ipv4Unicast");
    }

    /**
     * bgpd killed with SIGKILL, as a crash ends it, while zebra runs on: with {@code bgp graceful-restart} bgpd has
     * told zebra to keep its routes for a while when it goes (zebra's client graceful restart), so the FIB still
     * forwards. Its neighbours see their connections closed without a NOTIFICATION.
     */
    public void killBgpd() {
        daemons.kill("bgpd");
    }

    /**
     * bgpd started again with the same configuration: within its restart time it sets Restart State in its OPENs (RFC
     * 4724 4.1) and defers its best-path selection until its neighbours' End-of-RIB.
     */
    public void startBgpd() {
        daemons.start("bgpd", daemon("bgpd"));
        daemons.awaitAnswer(vtyshCommand("show bgp summary json"));
    }

    @Override
    public List<RouterBfdPeer> bfdPeers() {
        return FrrJson.bfdPeers(RouterDaemons.json(vtysh("show bfd peers json")));
    }

    @Override
    void stop() {
        List<Long> pids =
                daemons.processes().stream().map(NamespacedProcess::pid).toList();
        daemons.stopAll();
        // FRR keeps a crash-log buffer per daemon process there and does not always remove it on exit
        for (String daemon : List.of("zebra", "bgpd", "bfdd")) {
            pids.forEach(pid -> TempFiles.deleteRecursively(Leftovers.FRR_CRASH_LOGS.resolve(daemon + "." + pid)));
        }
    }

    private List<String> vtyshCommand(String... commands) {
        List<String> command = new ArrayList<>(List.of(
                RouterTool.VTYSH.path(), "--vty_socket", daemons.runDirectory().toString()));
        for (String c : commands) {
            command.add("-c");
            command.add(c);
        }
        return command;
    }

    /** Foreground (no -d), so the network tracks and stops it; logs to stdout, which goes to its log file. */
    private List<String> daemon(String name) {
        List<String> command = new ArrayList<>(List.of(DAEMONS.resolve(name).toString()));
        command.addAll(RUN_AS);
        command.addAll(List.of(
                "-f", daemons.file(name + ".conf").toString(),
                "-i", daemons.runFile(name + ".pid").toString(),
                "--vty_socket", daemons.runDirectory().toString(),
                "-z", daemons.runFile("zserv.api").toString(),
                "-P", "0", // no vty on TCP: vtysh uses the socket directory
                "--log", "stdout"));
        return command;
    }

    private void awaitFile(Path file) {
        Poll.until(
                "FRR's " + file.getFileName() + " created",
                () -> Files.exists(file),
                b -> b,
                RouterDaemons.START_TIMEOUT);
    }
}
