package io.lbk8s.testkit.net;

import java.net.InetAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * BIRD 2.0 in a namespace: one bird daemon with its config, control socket and pid file in the run's directories,
 * queried with {@code birdc -s}. As the router, its kernel protocol programs the FIB (ECMP with {@code merge paths}) and
 * its bfd protocol runs BFD; on a node it stands in for a speaker ({@link #announce}, {@link #withdraw}).
 */
public final class BirdRouter extends DaemonRouter implements BgpRouter {

    private final List<Announcement> announced = new ArrayList<>();

    /** A route a node's BIRD originates. */
    public record Announcement(String prefix, List<String> communities, OptionalLong localPref) {
        public Announcement {
            communities = List.copyOf(communities);
        }
    }

    private BirdRouter(TestNetwork network, String namespace, RouterConfig config) {
        super(RouterKind.BIRD, "BIRD", network, namespace, config);
    }

    /** {@code router}: import paths and program the FIB; otherwise a node's speaker exporting its announcements. */
    static BirdRouter start(TestNetwork network, String namespace, RouterConfig config, boolean router) {
        return started(new BirdRouter(network, namespace, config), bird -> {
            RouterDaemons daemons = bird.daemons;
            bird.writeAnnounced();
            daemons.write("bird.conf", BirdConfig.render(config, router, daemons.directory()));
            daemons.start("bird", bird.birdCommand(false));
            daemons.awaitAnswer(bird.birdcCommand("show status"));
        });
    }

    /**
     * BIRD restarted gracefully, as an operator does it: {@code birdc graceful restart} ends its sessions without a
     * NOTIFICATION (so neighbours with graceful restart keep its routes, RFC 4724) and leaves its kernel routes, then
     * {@code bird -R} starts it again in graceful restart recovery: its OPENs set Restart State, and it keeps the old
     * kernel routes until every neighbour that offered graceful restart has sent End-of-RIB. Returns once its CLI
     * answers.
     */
    public void restartGracefully() {
        // birdc may lose its connection as bird exits: whether bird went is what counts, its reply says why not
        CommandResult reply = daemons.run(birdcCommand("graceful restart"));
        try {
            daemons.awaitExit("bird", RouterDaemons.START_TIMEOUT);
        } catch (IllegalStateException e) {
            throw new IllegalStateException(
                    "birdc graceful restart in " + namespace() + ": "
                            + reply.output().strip(),
                    e);
        }
        daemons.start("bird", birdCommand(true));
        daemons.awaitAnswer(birdcCommand("show status"));
    }

    /** Whether BIRD is still in graceful restart recovery: waiting for some neighbour's End-of-RIB. */
    public boolean recoveringFromGracefulRestart() {
        return birdc("show", "status").contains("Graceful restart recovery in progress");
    }

    /** Any birdc command, e.g. {@code birdc("show", "protocols")}; its output. */
    public String birdc(String... words) {
        return daemons.cli(birdcCommand(String.join(" ", words)));
    }

    @Override
    public List<RouterSession> sessions() {
        return BirdText.sessions(birdc("show", "protocols", "all"));
    }

    @Override
    public List<RibPath> routes(String prefix) {
        return paths(prefix, "");
    }

    @Override
    public List<RouterBfdPeer> bfdPeers() {
        if (config.peers().stream().noneMatch(p -> p.bfd().isPresent())) {
            return List.of(); // no bfd protocol configured: birdc would say so as an error
        }
        return BirdText.bfdPeers(birdc("show", "bfd", "sessions"));
    }

    /** Each BGP neighbour's graceful restart as BIRD reports it ({@code show protocols all}). */
    public List<BirdGracefulRestart> gracefulRestarts() {
        return BirdText.gracefulRestarts(birdc("show", "protocols", "all"));
    }

    public Optional<BirdGracefulRestart> gracefulRestart(InetAddress neighbor) {
        return gracefulRestarts().stream()
                .filter(r -> r.neighbor().equals(neighbor))
                .findFirst();
    }

    /**
     * Next hops of the paths to {@code prefix} BIRD keeps as stale: those of a neighbour whose session dropped while it
     * had announced graceful restart (RFC 4724 4.2), still forwarded until it is back with its End-of-RIB or its restart
     * time ends. BIRD marks the neighbour, not the route, so these are the paths of its protocol.
     */
    public List<InetAddress> staleNextHops(String prefix) {
        List<InetAddress> stale = new ArrayList<>();
        for (BirdGracefulRestart restart : gracefulRestarts()) {
            if (restart.active()) {
                paths(prefix, " protocol " + restart.protocol()).forEach(p -> stale.add(p.nextHop()));
            }
        }
        return stale.stream().distinct().toList();
    }

    /** Originates {@code prefix} to every peer of its family, next hop itself. */
    public void announce(String prefix) {
        announce(prefix, List.of(), OptionalLong.empty());
    }

    /** As {@link #announce(String)}, with standard communities ({@code 64500:100}) and, for iBGP, a LOCAL_PREF. */
    public synchronized void announce(String prefix, List<String> communities, OptionalLong localPref) {
        announced.removeIf(a -> a.prefix().equals(prefix));
        announced.add(new Announcement(prefix, communities, localPref));
        reconfigure();
    }

    public synchronized void withdraw(String prefix) {
        announced.removeIf(a -> a.prefix().equals(prefix));
        reconfigure();
    }

    /**
     * Every BGP protocol's {@code bfd on} becomes {@code bfd graceful}, and BIRD reconfigures (restarting those
     * sessions): a BFD session that goes down then starts a graceful restart of the BGP session instead of ending it,
     * so a neighbour's paths stay as stale.
     */
    public synchronized void bfdGraceful() {
        Path conf = daemons.file("bird.conf");
        try {
            String text = java.nio.file.Files.readString(conf);
            if (!text.contains("  bfd on;")) {
                throw new IllegalStateException("no peer with BFD in " + conf);
            }
            daemons.write("bird.conf", text.replace("  bfd on;", "  bfd graceful;"));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        reconfigure();
    }

    @Override
    void stop() {
        daemons.stopAll(); // bird removes its kernel routes on SIGTERM
    }

    private void reconfigure() {
        writeAnnounced();
        String reply = birdc("configure");
        if (!reply.contains("Reconfigured") && !reply.contains("Reconfiguration in progress")) {
            throw new IllegalStateException("birdc configure in " + namespace() + ": " + reply.strip());
        }
    }

    private void writeAnnounced() {
        for (String family : List.of("ipv4", "ipv6")) {
            boolean ipv6 = family.equals("ipv6");
            daemons.write(
                    BirdConfig.ANNOUNCED + "." + family,
                    BirdConfig.announced(announced.stream()
                            .filter(a -> a.prefix().contains(":") == ipv6)
                            .toList()));
        }
    }

    /** {@code show route <prefix><filter> all}, e.g. with filter {@code " protocol peer_2"}. */
    private List<RibPath> paths(String prefix, String filter) {
        List<String> command = birdcCommand("show route " + prefix + filter + " all");
        CommandResult result = daemons.run(command);
        if (result.stdout().contains("Network not found")) {
            return List.of(); // birdc's way of saying there is no route, with exit code 1
        }
        return BirdText.paths(prefix, daemons.check(command, result));
    }

    /** bird in the foreground with this run's files; {@code recovering}: {@code -R}, after a graceful restart. */
    private List<String> birdCommand(boolean recovering) {
        List<String> command = new ArrayList<>(List.of(
                RouterTool.BIRD.path(),
                "-f",
                "-c",
                daemons.file("bird.conf").toString(),
                "-s",
                daemons.runFile("bird.ctl").toString(),
                "-P",
                daemons.runFile("bird.pid").toString()));
        if (recovering) {
            command.add("-R");
        }
        return command;
    }

    private List<String> birdcCommand(String command) {
        List<String> words = new ArrayList<>(List.of(
                RouterTool.BIRDC.path(), "-s", daemons.runFile("bird.ctl").toString()));
        words.addAll(List.of(command.split(" ")));
        return words;
    }
}
