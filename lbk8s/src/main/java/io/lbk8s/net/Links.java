package io.lbk8s.net;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import io.lbk8s.address.IpAddress;
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
import java.util.Optional;

/** The interfaces of the calling process's network namespace. */
public final class Links {

    private static final int IFNAMSIZ = 16;
    private static final int IFREQ_SIZE = 40;
    private static final int IFREQ_HWADDR_DATA = 18; // ifr_hwaddr (struct sockaddr at 16) . sa_data

    private Links() {}

    /** Every interface, sorted by index. */
    public static List<LinkInfo> list() {
        List<LinkInfo> links = new ArrayList<>();
        try {
            for (NetworkInterface nic : NetworkInterface.networkInterfaces().toList()) {
                try {
                    links.add(describe(nic));
                } catch (UncheckedIOException e) {
                    if (!(e.getCause() instanceof NativeIOException n && n.errno() == 19)) {
                        throw e;
                    } // ENODEV: the interface went away while we listed; leave it out
                }
            }
        } catch (SocketException e) {
            throw new UncheckedIOException("cannot list the network interfaces", e);
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

    private static LinkInfo describe(NetworkInterface nic) throws SocketException {
        List<LinkAddress> addresses = new ArrayList<>();
        for (InterfaceAddress address : nic.getInterfaceAddresses()) {
            addresses.add(new LinkAddress(IpAddress.of(address.getAddress()), address.getNetworkPrefixLength()));
        }
        return new LinkInfo(nic.getName(), nic.getIndex(), hardwareAddress(nic.getName()), nic.isUp(),
                nic.isLoopback(), master(nic.getName()), addresses);
    }

    /**
     * The MAC by SIOCGIFHWADDR rather than from /sys/class/net: under {@code nsenter --net} sysfs still shows the
     * namespace it was mounted in. Interfaces without one (loopback, tunnels) give 00:00:00:00:00:00.
     */
    static MacAddress hardwareAddress(String name) {
        byte[] nameBytes = name.getBytes(StandardCharsets.US_ASCII);
        if (nameBytes.length >= IFNAMSIZ) {
            throw new IllegalArgumentException("interface name longer than 15 bytes: " + name);
        }
        int fd = Native.socket(Native.AF_INET, Native.SOCK_DGRAM | Native.SOCK_CLOEXEC, 0);
        if (fd < 0) {
            throw new UncheckedIOException(NativeIOException.of("cannot open a socket to read the MAC of " + name, Native.errno()));
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ifreq = arena.allocate(IFREQ_SIZE, 8);
            MemorySegment.copy(nameBytes, 0, ifreq, JAVA_BYTE, 0, nameBytes.length);
            if (Native.ioctl(fd, Native.SIOCGIFHWADDR, ifreq) < 0) {
                throw new UncheckedIOException(NativeIOException.of("cannot read the MAC of " + name, Native.errno()));
            }
            return new MacAddress(Wire.mac(ifreq, IFREQ_HWADDR_DATA));
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
