package io.lbk8s.bgp.session;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The session's connector inside a test namespace, driven over stdin: {@code connect ADDRESS PORT TTL} ({@code -}
 * for the system's default) answers {@code ok LINE} with the first line the peer sends, or {@code error SENTENCE};
 * {@code quit} ends it. Exits at end of input, and after 120 s regardless.
 */
public final class ConnectChild {
    private ConnectChild() {}

    public static void main(String[] args) throws Exception {
        Thread.ofPlatform().daemon().start(() -> {
            try {
                Thread.sleep(Duration.ofSeconds(120));
            } catch (InterruptedException e) {
                return;
            }
            System.exit(2);
        });
        Md5Connector connector = new Md5Connector();
        System.out.println("ready");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null && !line.equals("quit"); ) {
            String[] words = line.split(" ");
            InetSocketAddress remote =
                    new InetSocketAddress(InetAddress.ofLiteral(words[1]), Integer.parseInt(words[2]));
            OptionalInt ttl = words[3].equals("-") ? OptionalInt.empty() : OptionalInt.of(Integer.parseInt(words[3]));
            try (Connection connection =
                    connector.connect(remote, Optional.empty(), Optional.empty(), ttl, Duration.ofSeconds(3))) {
                BufferedReader peer =
                        new BufferedReader(new InputStreamReader(connection.input(), StandardCharsets.US_ASCII));
                System.out.println("ok " + peer.readLine());
            } catch (IOException e) {
                System.out.println("error " + e.getMessage());
            }
        }
    }
}
