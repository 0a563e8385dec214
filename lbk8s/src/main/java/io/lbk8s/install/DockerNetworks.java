package io.lbk8s.install;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpPrefix;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The Docker networks on this machine, read from the Docker Engine API over its unix socket: on kind and Talos-on-
 * Docker the node containers' network is the L2 domain, and it is often larger than the /24 a guess would give
 * (kind's 172.18.0.0/16). Optional: without a socket, or on any error, there are none.
 */
public final class DockerNetworks {
    private DockerNetworks() {}

    /** Pure: the subnets in a {@code GET /networks} answer. */
    public static List<RangeChoice.KnownNetwork> parse(String json) {
        List<RangeChoice.KnownNetwork> networks = new ArrayList<>();
        JsonNode root;
        try {
            root = JsonMapper.builder().build().readTree(json);
        } catch (JacksonException e) {
            return List.of();
        }
        for (JsonNode network : root) {
            String name = network.path("Name").asString("");
            for (JsonNode config : network.path("IPAM").path("Config")) {
                Optional<IpPrefix> subnet =
                        IpPrefix.parse(config.path("Subnet").asString("")).map(IpPrefix::canonical);
                Optional<IpAddress> gateway =
                        IpAddress.parse(config.path("Gateway").asString(""));
                subnet.ifPresent(s -> networks.add(
                        new RangeChoice.KnownNetwork(s, gateway.filter(s::contains), "Docker network " + name)));
            }
        }
        return List.copyOf(networks);
    }

    /** Reads them from the socket; empty when there is none or it does not answer as Docker does. */
    public static List<RangeChoice.KnownNetwork> read(Path socket) {
        if (!Files.exists(socket)) {
            return List.of();
        }
        try {
            return get(socket, "/networks").map(DockerNetworks::parse).orElse(List.of());
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
    }

    /** A minimal HTTP/1.0 GET (no keep-alive, no chunking: the body runs to the end of the stream). */
    static Optional<String> get(Path socket, String path) throws IOException {
        try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            channel.connect(UnixDomainSocketAddress.of(socket));
            channel.write(ByteBuffer.wrap(
                    ("GET " + path + " HTTP/1.0\r\nHost: docker\r\n\r\n").getBytes(StandardCharsets.US_ASCII)));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteBuffer buffer = ByteBuffer.allocate(16_384);
            while (channel.read(buffer) >= 0 && out.size() < 16 << 20) {
                out.write(buffer.array(), 0, buffer.position());
                buffer.clear();
            }
            return body(out.toString(StandardCharsets.UTF_8));
        }
    }

    /** Pure: the body of a 200 answer. */
    static Optional<String> body(String response) {
        int end = response.indexOf("\r\n\r\n");
        if (!response.startsWith("HTTP/1.")
                || end < 0
                || !response.substring(0, response.indexOf("\r\n")).contains(" 200")) {
            return Optional.empty();
        }
        return Optional.of(response.substring(end + 4));
    }
}
