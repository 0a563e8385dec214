package io.lbk8s.cli;

import io.lbk8s.address.IpAddress;
import io.lbk8s.bgp.Capability;
import io.lbk8s.bgp.Decoded;
import io.lbk8s.bgp.Family;
import io.lbk8s.bgp.Message;
import io.lbk8s.bgp.MessageDecoder;
import io.lbk8s.bgp.MessageEncoder;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The router of the AOT training run: a BGP listener on loopback speaking lbk8s's own codecs, so that the speaker's
 * BGP path (its session, the OPEN exchange, the UPDATEs for a new Service) runs during training and goes into the
 * cache; without it the first Service advertised over BGP after a start ran that code cold. It answers each
 * OPEN with its own and a KEEPALIVE, then records the prefixes the UPDATEs announce. It keeps no table.
 */
final class TrainingRouter implements AutoCloseable {
    static final long ASN = 64500;

    private final ServerSocket server;
    private final Set<String> announced = ConcurrentHashMap.newKeySet();

    private TrainingRouter(ServerSocket server) {
        this.server = server;
    }

    static TrainingRouter start() throws IOException {
        TrainingRouter router = new TrainingRouter(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()));
        Thread.ofPlatform().daemon().name("training-router").start(router::serve);
        return router;
    }

    int port() {
        return server.getLocalPort();
    }

    /** The prefixes announced to it so far, like {@code 198.51.100.200/32}. */
    Set<String> announced() {
        return Set.copyOf(announced);
    }

    /** One connection after another (the speaker reconnects after an error) until the training run closes it. */
    private void serve() {
        while (!server.isClosed()) {
            session();
        }
    }

    private void session() {
        try (Socket peer = server.accept()) {
            InputStream in = peer.getInputStream();
            OutputStream out = peer.getOutputStream();
            if (!(read(in) instanceof Message.Open)) {
                return;
            }
            Message.Open ours = Message.Open.of(
                    ASN,
                    90,
                    // not the speaker's own (its source address here): it would refuse the OPEN
                    IpAddress.parse("198.51.100.1").orElseThrow(),
                    List.of(Capability.Multiprotocol.of(Family.IPV4_UNICAST), new Capability.FourOctetAs(ASN)));
            out.write(MessageEncoder.encode(ours, true));
            out.write(MessageEncoder.encode(new Message.Keepalive(), true));
            while (true) {
                if (read(in) instanceof Message.Update update) {
                    update.nlri().forEach(prefix -> announced.add(prefix.toString()));
                }
            }
        } catch (IOException | RuntimeException closed) {
            // the training run is over, or the speaker closed the session: nothing more to learn
        }
    }

    private static Message read(InputStream in) throws IOException {
        byte[] header = in.readNBytes(MessageDecoder.HEADER);
        if (header.length < MessageDecoder.HEADER) {
            throw new IOException("the peer closed the connection");
        }
        byte[] message = new byte[MessageDecoder.length(header)];
        System.arraycopy(header, 0, message, 0, header.length);
        in.readNBytes(message, header.length, message.length - header.length);
        return switch (MessageDecoder.decode(message, true)) {
            case Decoded.Valid(var valid) -> valid;
            case Decoded.Invalid invalid -> throw new IOException("the speaker sent " + invalid.reason());
        };
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
