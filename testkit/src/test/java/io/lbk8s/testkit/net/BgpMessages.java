package io.lbk8s.testkit.net;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The BGP messages in a tcpdump capture (pcap, Ethernet, IPv4), per sender: each TCP stream's payload in sequence
 * order, cut at the BGP header's length field. Enough for captures on a quiet veth: no reassembly beyond skipping
 * retransmitted bytes.
 */
record BgpMessages(InetAddress sender, int type, byte[] bytes) {

    static final int OPEN = 1;
    static final int UPDATE = 2;
    static final int NOTIFICATION = 3;
    static final int KEEPALIVE = 4;
    private static final int BGP_HEADER = 19;

    static List<BgpMessages> read(Path pcap) throws IOException {
        ByteBuffer file = ByteBuffer.wrap(Files.readAllBytes(pcap));
        int magic = file.order(ByteOrder.BIG_ENDIAN).getInt(0);
        file.order(magic == 0xa1b2c3d4 || magic == 0xa1b23c4d ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN);
        file.position(24);
        Map<String, Stream> streams = new HashMap<>();
        List<Stream> order = new ArrayList<>();
        while (file.remaining() >= 16) {
            file.getInt();
            file.getInt();
            int captured = file.getInt();
            file.getInt();
            byte[] frame = new byte[captured];
            file.get(frame);
            segment(frame, streams, order);
        }
        List<BgpMessages> messages = new ArrayList<>();
        order.forEach(s -> messages.addAll(s.messages()));
        return messages;
    }

    private static void segment(byte[] frame, Map<String, Stream> streams, List<Stream> order) throws IOException {
        ByteBuffer f = ByteBuffer.wrap(frame);
        if (frame.length < 34 || f.getShort(12) != 0x0800 || frame[23] != 6) {
            return; // not IPv4 TCP
        }
        int ip = 14;
        int ipHeader = (frame[ip] & 0x0f) * 4;
        int ipTotal = f.getShort(ip + 2) & 0xffff;
        int tcp = ip + ipHeader;
        int tcpHeader = ((frame[tcp + 12] & 0xf0) >> 4) * 4;
        int payload = tcp + tcpHeader;
        int end = ip + ipTotal;
        if (end <= payload) {
            return;
        }
        InetAddress source = InetAddress.getByAddress(Arrays.copyOfRange(frame, ip + 12, ip + 16));
        String key = source.getHostAddress() + ":" + (f.getShort(tcp) & 0xffff) + ">"
                + InetAddress.getByAddress(Arrays.copyOfRange(frame, ip + 16, ip + 20))
                        .getHostAddress() + ":"
                + (f.getShort(tcp + 2) & 0xffff);
        long sequence = f.getInt(tcp + 4) & 0xffffffffL;
        Stream stream = streams.computeIfAbsent(key, k -> {
            Stream s = new Stream(source, sequence);
            order.add(s);
            return s;
        });
        stream.add(sequence, Arrays.copyOfRange(frame, payload, end));
    }

    String hex() {
        return java.util.HexFormat.of().formatHex(bytes);
    }

    /** One direction of one TCP connection. */
    private static final class Stream {
        private final InetAddress sender;
        private long next;
        private final java.io.ByteArrayOutputStream data = new java.io.ByteArrayOutputStream();

        Stream(InetAddress sender, long first) {
            this.sender = sender;
            this.next = first;
        }

        void add(long sequence, byte[] payload) {
            long skip = next - sequence; // bytes already seen (a retransmission)
            if (skip < 0 || skip >= payload.length) {
                return;
            }
            data.write(payload, (int) skip, payload.length - (int) skip);
            next = sequence + payload.length;
        }

        List<BgpMessages> messages() {
            byte[] all = data.toByteArray();
            List<BgpMessages> messages = new ArrayList<>();
            int at = 0;
            while (all.length - at >= BGP_HEADER) {
                int length = ((all[at + 16] & 0xff) << 8) | (all[at + 17] & 0xff);
                if (length < BGP_HEADER || at + length > all.length) {
                    break;
                }
                messages.add(new BgpMessages(sender, all[at + 18], Arrays.copyOfRange(all, at, at + length)));
                at += length;
            }
            return messages;
        }
    }
}
