package io.lbk8s.install;

import io.lbk8s.address.IpAddress;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;

/** Whether a Service address answers from here; pluggable, since the machine running install may be off the node network. */
public interface Reachability {

    sealed interface Verdict {
        record Answered(String how) implements Verdict {}

        record NoAnswer(String why) implements Verdict {}
    }

    Verdict check(IpAddress address, int port);

    /**
     * A TCP connection attempt. A refused connection also counts as an answer: something at that address (the
     * announcing node, via kube-proxy) replied, so ARP/NDP resolved; only silence means the address is unreachable.
     */
    static Reachability tcp(Duration timeout) {
        return (address, port) -> {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(InetAddress.getByAddress(address.toBytes()), port), (int)
                        timeout.toMillis());
                return new Verdict.Answered("TCP connection to port " + port + " accepted");
            } catch (ConnectException e) {
                if (String.valueOf(e.getMessage()).contains("refused")) {
                    return new Verdict.Answered("port " + port + " refused the connection: the address answers");
                }
                return new Verdict.NoAnswer(e.getMessage());
            } catch (IOException e) {
                return new Verdict.NoAnswer(
                        e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
            }
        };
    }
}
