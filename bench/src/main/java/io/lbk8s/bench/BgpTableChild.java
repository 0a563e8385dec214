package io.lbk8s.bench;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpPrefix;
import io.lbk8s.bgp.PeerSpec;
import io.lbk8s.bgp.Route;
import io.lbk8s.bgp.SessionState;
import io.lbk8s.bgp.session.Md5Connector;
import io.lbk8s.bgp.session.Sessions;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One BGP session of our own ({@link Sessions}, the speaker's code) with a router, in a JVM the benchmark starts inside
 * a node's namespace, advertising {@code count} /32 routes from 10.100.0.0 on. Prints {@code ready}, then
 * {@code ok established NANOS PID} when the session first reaches Established ({@link System#nanoTime}: the host's
 * monotonic clock, which the benchmark's JVM shares). Arguments: router address, our AS, the router's AS, our source
 * address, count. Exits on {@code quit}, at end of input, and after 300 s regardless.
 */
public final class BgpTableChild {
    private BgpTableChild() {}

    public static void main(String[] args) throws Exception {
        Thread.ofPlatform().daemon().start(() -> {
            try {
                Thread.sleep(Duration.ofSeconds(300));
            } catch (InterruptedException e) {
                return;
            }
            System.exit(2);
        });
        PeerSpec spec = new PeerSpec(
                "router",
                IpAddress.parse(args[0]).orElseThrow(),
                179,
                Long.parseLong(args[1]),
                OptionalLong.of(Long.parseLong(args[2])),
                Optional.empty(),
                IpAddress.parse(args[3]),
                Optional.empty(),
                Duration.ofSeconds(90),
                Optional.empty(),
                Duration.ofSeconds(1),
                Optional.empty(),
                false,
                false,
                true,
                Optional.empty());
        int count = Integer.parseInt(args[4]);
        Set<Route> routes = new HashSet<>();
        for (int i = 0; i < count; i++) {
            String prefix = "10.100." + (i / 256) + "." + (i % 256) + "/32";
            routes.add(new Route(IpPrefix.parse(prefix).orElseThrow(), OptionalLong.empty(), List.of()));
        }
        AtomicBoolean established = new AtomicBoolean();
        Sessions sessions = Sessions.start(new Md5Connector(), Clock.systemUTC(), status -> {
            if (status.state() == SessionState.ESTABLISHED && established.compareAndSet(false, true)) {
                System.out.println("ok established " + System.nanoTime() + " "
                        + ProcessHandle.current().pid());
            }
        });
        // the routes first: the session sends them as soon as it is Established, as to a new peer
        sessions.advertise("router", routes);
        System.out.println("ready");
        sessions.configure(List.of(spec));
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null && !line.equals("quit"); ) {
            System.out.println("error: unknown command " + line);
        }
        sessions.close();
    }
}
