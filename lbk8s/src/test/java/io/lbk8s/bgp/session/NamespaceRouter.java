package io.lbk8s.bgp.session;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real router (GoBGP, BIRD or FRR's bgpd without zebra) in a test namespace, listening passively on an address of
 * the namespace's loopback and a free port, with its config, pid and control socket in a temporary directory, peered
 * with AS 64512 at {@link #NODE}. Not in 127.0.0.0/8: GoBGP and FRR refuse loopback next hops. Smaller than testkit's
 * harness (branch bgp-routers): one namespace, no LAN, and no zebra, which is enough to read the router's table.
 */
abstract class NamespaceRouter implements AutoCloseable {
    static final String NODE = "10.255.0.11";
    static final String NODE_V6 = "fd00:ff::11";
    static final long NODE_ASN = 64512;
    static final long ROUTER_ASN = 64513;

    final String namespace;
    final Path dir;
    final int port;
    private final List<Process> processes = new ArrayList<>();

    NamespaceRouter(String namespace) throws IOException {
        this.namespace = namespace;
        dir = Files.createTempDirectory("lbk8s-bgp-router");
        port = freePort();
    }

    abstract String name();

    /** The router's address: each router its own, so that a stale one cannot answer for another. */
    abstract String address();

    abstract void start() throws IOException;

    /** The router's IPv4 or IPv6 unicast table as the router's own CLI prints it. */
    abstract String rib(boolean ipv6) throws IOException;

    /** A port free on this host; the namespace has nothing listening but what the test starts. */
    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private List<String> inNamespace(String... command) {
        List<String> all = new ArrayList<>(List.of("ip", "netns", "exec", namespace));
        all.addAll(List.of(command));
        return all;
    }

    void spawn(String... command) throws IOException {
        processes.add(new ProcessBuilder(inNamespace(command))
                .redirectErrorStream(true)
                .redirectOutput(
                        dir.resolve(Path.of(command[0]).getFileName() + ".log").toFile())
                .start());
    }

    String run(String... command) throws IOException {
        Process process = new ProcessBuilder(inNamespace(command))
                .redirectErrorStream(true)
                .start();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IOException(String.join(" ", command) + " did not finish in 10 s");
            }
            return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    /** The end of what the router's processes printed. */
    String log() throws IOException {
        StringBuilder text = new StringBuilder();
        try (var files = Files.list(dir)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".log")).toList()) {
                String all = Files.readString(file);
                text.append(all, Math.max(0, all.length() - 3000), all.length());
            }
        }
        return text.toString();
    }

    void write(String file, String text) throws IOException {
        Files.writeString(dir.resolve(file), text);
    }

    @Override
    public void close() throws Exception {
        for (Process process : processes) {
            process.destroy();
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder())
                    .forEach(f -> f.toFile().delete());
        }
    }

    static final class Gobgp extends NamespaceRouter {
        private final int api;

        Gobgp(String namespace) throws IOException {
            super(namespace);
            api = freePort();
        }

        @Override
        String name() {
            return "GoBGP";
        }

        @Override
        String address() {
            return "10.255.0.12";
        }

        @Override
        void start() throws IOException {
            write("gobgp.toml", """
                    [global.config]
                      as = %d
                      router-id = "%s"
                      port = %d
                      local-address-list = ["%s"]
                    [[neighbors]]
                      [neighbors.config]
                        neighbor-address = "%s"
                        peer-as = %d
                      [neighbors.transport.config]
                        passive-mode = true
                        local-address = "%s"
                      [neighbors.graceful-restart.config]
                        enabled = true
                        helper-only = true
                      [[neighbors.afi-safis]]
                        [neighbors.afi-safis.config]
                          afi-safi-name = "ipv4-unicast"
                        [neighbors.afi-safis.mp-graceful-restart.config]
                          enabled = true
                      [[neighbors.afi-safis]]
                        [neighbors.afi-safis.config]
                          afi-safi-name = "ipv6-unicast"
                        [neighbors.afi-safis.mp-graceful-restart.config]
                          enabled = true
                    """.formatted(ROUTER_ASN, address(), port, address(), NODE, NODE_ASN, address()));
            spawn(
                    "gobgpd",
                    "-f",
                    dir.resolve("gobgp.toml").toString(),
                    "--api-hosts",
                    "127.0.0.1:" + api,
                    "--pprof-disable");
        }

        @Override
        String rib(boolean ipv6) throws IOException {
            return run(
                    "gobgp",
                    "-u",
                    "127.0.0.1",
                    "-p",
                    String.valueOf(api),
                    "global",
                    "rib",
                    "-a",
                    ipv6 ? "ipv6" : "ipv4",
                    "-j");
        }
    }

    static final class Bird extends NamespaceRouter {
        Bird(String namespace) throws IOException {
            super(namespace);
        }

        @Override
        String name() {
            return "BIRD";
        }

        @Override
        String address() {
            return "10.255.0.13";
        }

        @Override
        void start() throws IOException {
            // multihop: BIRD takes a loopback neighbor for a remote one; passive: the node connects, as to a router
            write("bird.conf", """
                    router id %s;
                    protocol device {}
                    protocol bgp node {
                      local %s port %d as %d;
                      neighbor %s as %d;
                      passive; strict bind; multihop;
                      ipv4 { import all; export none; };
                      ipv6 { import all; export none; };
                    }
                    """.formatted(address(), address(), port, ROUTER_ASN, NODE, NODE_ASN));
            spawn(
                    "bird",
                    "-f",
                    "-c",
                    dir.resolve("bird.conf").toString(),
                    "-s",
                    dir.resolve("bird.ctl").toString(),
                    "-P",
                    dir.resolve("bird.pid").toString());
        }

        @Override
        String rib(boolean ipv6) throws IOException {
            return run(
                    "birdc",
                    "-s",
                    dir.resolve("bird.ctl").toString(),
                    "show",
                    "route",
                    "all",
                    "table",
                    ipv6 ? "master6" : "master4");
        }
    }

    static final class Frr extends NamespaceRouter {
        Frr(String namespace) throws IOException {
            super(namespace);
        }

        @Override
        String name() {
            return "FRR";
        }

        @Override
        String address() {
            return "10.255.0.14";
        }

        @Override
        void start() throws IOException {
            // without zebra FRR knows no connected networks, so the loopback neighbor needs the connected check off
            write("bgpd.conf", """
                    router bgp %d
                     bgp router-id %s
                     no bgp ebgp-requires-policy
                     neighbor %s remote-as %d
                     neighbor %s passive
                     neighbor %s disable-connected-check
                     address-family ipv6 unicast
                      neighbor %s activate
                     exit-address-family
                    """.formatted(ROUTER_ASN, address(), NODE, NODE_ASN, NODE, NODE, NODE));
            spawn(
                    "/usr/lib/frr/bgpd",
                    "-Z",
                    "-S",
                    "-u",
                    "root",
                    "-g",
                    "root",
                    "-l",
                    address(),
                    "-p",
                    String.valueOf(port),
                    "-P",
                    "0",
                    "-f",
                    dir.resolve("bgpd.conf").toString(),
                    "-i",
                    dir.resolve("bgpd.pid").toString(),
                    "--vty_socket",
                    dir.toString());
        }

        @Override
        String rib(boolean ipv6) throws IOException {
            return run(
                    "vtysh",
                    "--vty_socket",
                    dir.toString(),
                    "-c",
                    "show bgp " + (ipv6 ? "ipv6" : "ipv4") + " unicast json");
        }
    }
}
