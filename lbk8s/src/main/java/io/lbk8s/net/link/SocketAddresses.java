package io.lbk8s.net.link;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.lbk8s.net.frame.Wire;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/**
 * {@code struct sockaddr_in} and {@code sockaddr_in6} as the kernel reads and writes them: the family in host order,
 * the port and address in network order.
 */
final class SocketAddresses {

    /** {@code sizeof(struct sockaddr_storage)}: room for any address the kernel hands back. */
    static final int STORAGE = 128;

    private static final int IN_SIZE = 16;
    private static final int IN6_SIZE = 28;

    private SocketAddresses() {}

    static int family(InetAddress address) {
        return address instanceof Inet6Address ? Native.AF_INET6 : Native.AF_INET;
    }

    static int size(InetAddress address) {
        return address instanceof Inet6Address ? IN6_SIZE : IN_SIZE;
    }

    static MemorySegment allocate(Arena arena, InetSocketAddress address) {
        MemorySegment segment = arena.allocate(STORAGE, 8);
        write(segment, address);
        return segment;
    }

    /** Writes {@code address} at the start of {@code target} (at least {@link #size} bytes, zeroed). */
    static void write(MemorySegment target, InetSocketAddress address) {
        InetAddress ip = address.getAddress();
        target.set(JAVA_SHORT, 0, (short) family(ip));
        target.set(Wire.U16, 2, (short) address.getPort());
        byte[] bytes = ip.getAddress();
        long at = ip instanceof Inet6Address ? 8 : 4; // sin6_flowinfo comes first in sockaddr_in6
        MemorySegment.copy(bytes, 0, target, JAVA_BYTE, at, bytes.length);
        if (ip instanceof Inet6Address v6) {
            target.set(JAVA_INT, 24, v6.getScopeId());
        }
    }

    static InetSocketAddress read(MemorySegment source) {
        int family = source.get(JAVA_SHORT, 0);
        int port = Short.toUnsignedInt(source.get(Wire.U16, 2));
        byte[] bytes = new byte[family == Native.AF_INET6 ? 16 : 4];
        MemorySegment.copy(source, JAVA_BYTE, family == Native.AF_INET6 ? 8 : 4, bytes, 0, bytes.length);
        try {
            InetAddress ip = InetAddress.getByAddress(bytes);
            if (ip instanceof Inet4Address || family != Native.AF_INET6) {
                return new InetSocketAddress(ip, port);
            }
            int scope = source.get(JAVA_INT, 24);
            return new InetSocketAddress(scope == 0 ? ip : Inet6Address.getByAddress(null, bytes, scope), port);
        } catch (UnknownHostException e) {
            throw new IllegalStateException("the kernel returned an address of " + bytes.length + " bytes", e);
        }
    }
}
