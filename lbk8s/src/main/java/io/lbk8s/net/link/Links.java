package io.lbk8s.net.link;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.lbk8s.address.IpAddress;
import io.lbk8s.net.frame.MacAddress;
import io.lbk8s.net.frame.Wire;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InterfaceAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** The interfaces of the calling process's network namespace. */
public final class Links {

    /**
     * The state of an interface now, as {@link #state} reads it with one ioctl.
     *
     * @param up      administratively up (IFF_UP)
     * @param running up with a carrier (IFF_RUNNING); false after a carrier loss even while {@code up}
     */
    public record LinkState(boolean up, boolean running) {

        /** Up and running: frames can be sent and received. */
        public boolean operational() {
            return up && running;
        }
    }

    private static final int IFNAMSIZ = 16;
    private static final int IFREQ_SIZE = 40;
    private static final int IFREQ_DATA = 16; // the union after ifr_name
    private static final int IFREQ_HWADDR_DATA = 18; // ifr_hwaddr (struct sockaddr at 16) . sa_data
    private static final int IFF_UP = 0x1;
    private static final int IFF_LOOPBACK = 0x8;
    private static final int IFF_RUNNING = 0x40;
    private static final int ENXIO = 6;
    private static final int ENODEV = 19;

    private Links() {}

    /**
     * Every interface, sorted by index. Names and indexes come from if_nameindex(3): java.net.NetworkInterface
     * omits interfaces without any address, such as most bridge members. Addresses come from NetworkInterface.
     */
    public static List<LinkInfo> list() {
        List<LinkInfo> links = new ArrayList<>();
        for (var entry : nameIndex().entrySet()) {
            try {
                links.add(describe(entry.getValue(), entry.getKey()));
            } catch (UncheckedIOException e) {
                if (!(e.getCause() instanceof NativeIOException n && n.errno() == ENODEV)) {
                    throw e;
                } // ENODEV: the interface went away while we listed; leave it out
            }
        }
        links.sort(Comparator.comparingInt(LinkInfo::index));
        return List.copyOf(links);
    }

    public static Optional<LinkInfo> byName(String name) {
        return list().stream().filter(link -> link.name().equals(name)).findFirst();
    }

    public static Optional<LinkInfo> byIndex(int index) {
        return list().stream().filter(link -> link.index() == index).findFirst();
    }

    private static Map<Integer, String> nameIndex() {
        MemorySegment array = Native.ifNameIndex();
        if (array.equals(MemorySegment.NULL)) {
            throw new UncheckedIOException(NativeIOException.of("cannot list the network interfaces", Native.errno()));
        }
        try {
            Map<Integer, String> names = new TreeMap<>();
            MemorySegment entries = array.reinterpret(Long.MAX_VALUE);
            for (long at = 0; ; at += 16) { // struct if_nameindex { unsigned if_index; char *if_name; }
                int index = entries.get(JAVA_INT, at);
                if (index == 0) {
                    return names;
                }
                MemorySegment name = entries.get(ADDRESS, at + 8);
                names.put(index, name.reinterpret(IFNAMSIZ + 1).getString(0));
            }
        } finally {
            Native.ifFreeNameIndex(array);
        }
    }

    private static LinkInfo describe(String name, int index) {
        List<LinkAddress> addresses = new ArrayList<>();
        try {
            NetworkInterface nic = NetworkInterface.getByIndex(index);
            if (nic != null) {
                for (InterfaceAddress address : nic.getInterfaceAddresses()) {
                    addresses.add(
                            new LinkAddress(IpAddress.of(address.getAddress()), address.getNetworkPrefixLength()));
                }
            }
        } catch (SocketException e) {
            throw new UncheckedIOException("cannot read the addresses of " + name, e);
        }
        short flags = ioctl(name, Native.SIOCGIFFLAGS).get(JAVA_SHORT, IFREQ_DATA);
        return new LinkInfo(
                name,
                index,
                hardwareAddress(name),
                (flags & IFF_UP) != 0,
                (flags & IFF_RUNNING) != 0,
                (flags & IFF_LOOPBACK) != 0,
                master(name),
                addresses);
    }

    /**
     * Whether the interface is up and running now, with one SIOCGIFFLAGS ioctl (no listing, no addresses), for a
     * check every few milliseconds; empty when no interface has that name (any more). Carrier loss shows as
     * {@code running} false while {@code up} stays true.
     *
     * @throws UncheckedIOException when the kernel refuses the query for another reason
     */
    public static Optional<LinkState> state(String name) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ifreq = arena.allocate(IFREQ_SIZE, 8);
            int errno = ioctl(name, Native.SIOCGIFFLAGS, ifreq);
            if (errno == ENODEV || errno == ENXIO) {
                return Optional.empty();
            }
            if (errno != 0) {
                throw new UncheckedIOException(NativeIOException.of("cannot query interface " + name, errno));
            }
            short flags = ifreq.get(JAVA_SHORT, IFREQ_DATA);
            return Optional.of(new LinkState((flags & IFF_UP) != 0, (flags & IFF_RUNNING) != 0));
        }
    }

    /**
     * The MAC by SIOCGIFHWADDR rather than from /sys/class/net: under {@code nsenter --net} sysfs still shows the
     * namespace it was mounted in. Interfaces without one (loopback, tunnels) give 00:00:00:00:00:00.
     */
    static MacAddress hardwareAddress(String name) {
        return new MacAddress(Wire.mac(ioctl(name, Native.SIOCGIFHWADDR), IFREQ_HWADDR_DATA));
    }

    /** One interface ioctl; the returned ifreq copy lives in an automatic arena. */
    private static MemorySegment ioctl(String name, long request) {
        MemorySegment ifreq = Arena.ofAuto().allocate(IFREQ_SIZE, 8);
        int errno = ioctl(name, request, ifreq);
        if (errno != 0) {
            throw new UncheckedIOException(NativeIOException.of("cannot query interface " + name, errno));
        }
        return ifreq;
    }

    /** One interface ioctl into {@code ifreq}: 0, or the errno of the failed call. */
    private static int ioctl(String name, long request, MemorySegment ifreq) {
        byte[] nameBytes = name.getBytes(StandardCharsets.US_ASCII);
        if (nameBytes.length >= IFNAMSIZ) {
            throw new IllegalArgumentException("interface name longer than 15 bytes: " + name);
        }
        int fd = Native.socket(Native.AF_INET, Native.SOCK_DGRAM | Native.SOCK_CLOEXEC, 0);
        if (fd < 0) {
            throw new UncheckedIOException(
                    NativeIOException.of("cannot open a socket to query " + name, Native.errno()));
        }
        try {
            MemorySegment.copy(nameBytes, 0, ifreq, JAVA_BYTE, 0, nameBytes.length);
            return Native.ioctl(fd, request, ifreq) < 0 ? Native.errno() : 0;
        } finally {
            Native.close(fd);
        }
    }

    private static Optional<String> master(String name) {
        Path link = Path.of("/sys/class/net", name, "master");
        try {
            return Files.isSymbolicLink(link)
                    ? Optional.of(Files.readSymbolicLink(link).getFileName().toString())
                    : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
