package io.lbk8s.e2e;

import io.lbk8s.address.IpAddress;
import io.lbk8s.net.bpf.BpfProgram;
import io.lbk8s.net.frame.NdpPacket;
import io.lbk8s.net.link.LinkInfo;
import io.lbk8s.net.link.Links;
import io.lbk8s.net.link.PacketSocket;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * Run inside the foreign host's namespace: sends one unsolicited neighbor advertisement for an address from that
 * host's MAC, as a host does when it takes an IPv6 address (no tool on the test machine sends one on demand), and
 * prints "ok" and the wall-clock microsecond it went out.
 */
public final class ForeignAdvertisement {
    private ForeignAdvertisement() {}

    public static void main(String[] args) throws Exception {
        LinkInfo link =
                Links.byName(args[0]).orElseThrow(() -> new IllegalArgumentException("no interface " + args[0]));
        IpAddress ip =
                IpAddress.parse(args[1]).orElseThrow(() -> new IllegalArgumentException("not an address: " + args[1]));
        try (Arena arena = Arena.ofConfined();
                PacketSocket socket =
                        PacketSocket.open(link, NdpPacket.ETHERTYPE, BpfProgram.rejectAll(), Duration.ofMillis(100))) {
            MemorySegment frame = arena.allocate(128, 16);
            int length = NdpPacket.encodeUnsolicitedAdvertisement(frame, ip, link.mac());
            Instant sent = Instant.now();
            socket.send(frame, length);
            System.out.println("ok " + ChronoUnit.MICROS.between(Instant.EPOCH, sent));
        }
    }
}
