package io.lbk8s.bgp.session;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpPrefix;
import io.lbk8s.bgp.Community;
import io.lbk8s.bgp.PeerSpec;
import io.lbk8s.bgp.Route;
import io.lbk8s.bgp.SessionStatus;
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

/**
 * Runs {@link Sessions} with one peer inside a test namespace, driven over stdin: {@code advertise PREFIX...}
 * (each route with community 64512:100), {@code status} (answers {@code ok STATE advertised=N error=SENTENCE}),
 * {@code close}, {@code quit}. Arguments: router address, port, our AS, the router's AS, our source address.
 * Exits on quit, at end of input, and after 180 s regardless.
 */
public final class SessionChild {
    private SessionChild() {}

    public static void main(String[] args) throws Exception {
        Thread.ofPlatform().daemon().start(() -> {
            try {
                Thread.sleep(Duration.ofSeconds(180));
            } catch (InterruptedException e) {
                return;
            }
            System.exit(2);
        });
        PeerSpec spec = new PeerSpec(
                "router",
                IpAddress.parse(args[0]).orElseThrow(),
                Integer.parseInt(args[1]),
                Long.parseLong(args[2]),
                OptionalLong.of(Long.parseLong(args[3])),
                Optional.empty(),
                IpAddress.parse(args[4]),
                Optional.empty(),
                Duration.ofSeconds(90),
                Optional.empty(),
                Duration.ofSeconds(1),
                Optional.empty(),
                false,
                args.length > 5 && args[5].equals("graceful-restart"),
                true,
                Optional.empty());
        Sessions sessions = Sessions.start(new Md5Connector(), Clock.systemUTC(), s -> {});
        sessions.configure(List.of(spec));
        System.out.println("ready");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null && !line.equals("quit"); ) {
            String[] words = line.split(" ");
            switch (words[0]) {
                case "advertise" -> {
                    Set<Route> routes = new HashSet<>();
                    for (int i = 1; i < words.length; i++) {
                        routes.add(new Route(
                                IpPrefix.parse(words[i]).orElseThrow(),
                                OptionalLong.empty(),
                                List.of(new Community.Standard(64512, 100))));
                    }
                    sessions.advertise("router", routes);
                    System.out.println("ok");
                }
                case "status" -> {
                    List<SessionStatus> statuses = sessions.statuses();
                    System.out.println(statuses.isEmpty() ? "ok closed" : line(statuses.getFirst()));
                }
                case "close" -> {
                    sessions.close();
                    System.out.println("ok");
                }
                default -> System.out.println("error: unknown command " + words[0]);
            }
        }
        sessions.close();
    }

    private static String line(SessionStatus s) {
        return "ok " + s.state() + " advertised=" + s.advertised() + " error="
                + s.lastError().orElse("");
    }
}
