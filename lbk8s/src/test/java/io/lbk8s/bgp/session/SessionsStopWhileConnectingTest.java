package io.lbk8s.bgp.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.bgp.PeerSpec;
import io.lbk8s.bgp.PeerSpecs;
import io.lbk8s.bgp.SessionState;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A session removed while its TCP connect is still under way (a speaker that has just started, whose node is held back a
 * moment later) must close the connection the connect then opens. Left open, it never sends an OPEN, and BIRD, which
 * keeps one incoming connection per neighbour, refuses the node's next connections for its 240 s OpenSent hold time.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class SessionsStopWhileConnectingTest {

    @Test
    void aConnectionThatOpensWhileTheSessionStopsIsClosed() throws Exception {
        CountDownLatch connecting = new CountDownLatch(1);
        CountDownLatch connected = new CountDownLatch(1);
        AtomicBoolean stopping = new AtomicBoolean();
        AtomicBoolean closed = new AtomicBoolean();
        Connector slow = (remote, source, password, ttl, timeout) -> {
            connecting.countDown();
            try {
                connected.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return new Connection() {
                @Override
                public InputStream input() {
                    return new ByteArrayInputStream(new byte[0]);
                }

                @Override
                public OutputStream output() {
                    return OutputStream.nullOutputStream();
                }

                @Override
                public InetSocketAddress local() {
                    return new InetSocketAddress(InetAddress.getLoopbackAddress(), 40000);
                }

                @Override
                public InetSocketAddress remote() {
                    return remote;
                }

                @Override
                public void close() {
                    closed.set(true);
                }
            };
        };
        // the connect completes while the session is ending: after it took its Stop, before its loop is over
        Sessions.Listener listener = status -> {
            if (stopping.get() && status.state() == SessionState.IDLE) {
                connected.countDown();
                sleep(300);
            }
        };
        Sessions sessions = Sessions.start(slow, Clock.systemUTC(), listener);
        sessions.configure(List.of(spec()));
        assertThat(connecting.await(10, TimeUnit.SECONDS)).isTrue();

        stopping.set(true);
        sessions.configure(List.of()); // the BGPPeer no longer applies to this node

        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (!closed.get() && System.nanoTime() < deadline) {
            sleep(20);
        }
        assertThat(closed)
                .as("the connection opened after the session stopped is closed")
                .isTrue();
        sessions.close();
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static PeerSpec spec() {
        return PeerSpecs.onLoopback("router", 179, Duration.ofSeconds(90), Duration.ofSeconds(2));
    }
}
