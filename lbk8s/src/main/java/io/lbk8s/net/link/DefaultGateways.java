package io.lbk8s.net.link;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpFamily;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** The next hops of this network namespace's default routes, from /proc/net/route and /proc/net/ipv6_route. */
public final class DefaultGateways {
    private static final Path IPV4_ROUTES = Path.of("/proc/net/route");
    private static final Path IPV6_ROUTES = Path.of("/proc/net/ipv6_route");

    private DefaultGateways() {}

    /** What this namespace's routing tables say now; what cannot be read is left out. */
    public static List<IpAddress> read() {
        List<IpAddress> gateways = new ArrayList<>();
        gateways.addAll(parseIpv4(readQuietly(IPV4_ROUTES)));
        gateways.addAll(parseIpv6(readQuietly(IPV6_ROUTES)));
        return List.copyOf(new LinkedHashSet<>(gateways));
    }

    private static String readQuietly(Path path) {
        try {
            return Files.readString(path);
        } catch (IOException e) {
            return "";
        }
    }

    /**
     * {@code Iface Destination Gateway Flags RefCnt Use Metric Mask ...}, addresses in hex in host (little-endian)
     * byte order: a default route has destination and mask 0 and a gateway.
     */
    static List<IpAddress> parseIpv4(String table) {
        Set<IpAddress> gateways = new LinkedHashSet<>();
        for (String line : table.lines().skip(1).toList()) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 8) {
                continue;
            }
            try {
                long destination = Long.parseLong(f[1], 16);
                long gateway = Long.parseLong(f[2], 16);
                long mask = Long.parseLong(f[7], 16);
                if (destination == 0 && mask == 0 && gateway != 0) {
                    gateways.add(IpAddress.v4(Integer.toUnsignedLong(Integer.reverseBytes((int) gateway))));
                }
            } catch (NumberFormatException ignored) {
                // not a route line
            }
        }
        return List.copyOf(gateways);
    }

    /**
     * {@code destination prefix-length source source-prefix-length next-hop metric refcount use flags iface}, each
     * address 32 hex digits: a default route is ::/0 with a next hop.
     */
    static List<IpAddress> parseIpv6(String table) {
        Set<IpAddress> gateways = new LinkedHashSet<>();
        for (String line : table.lines().toList()) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 10 || f[0].length() != 32 || f[4].length() != 32) {
                continue;
            }
            try {
                boolean anyDestination = Long.parseUnsignedLong(f[0].substring(0, 16), 16) == 0
                        && Long.parseUnsignedLong(f[0].substring(16), 16) == 0
                        && Integer.parseInt(f[1], 16) == 0;
                long high = Long.parseUnsignedLong(f[4].substring(0, 16), 16);
                long low = Long.parseUnsignedLong(f[4].substring(16), 16);
                if (anyDestination && (high != 0 || low != 0) && !"lo".equals(f[9])) {
                    gateways.add(new IpAddress(IpFamily.IPv6, high, low));
                }
            } catch (NumberFormatException ignored) {
                // not a route line
            }
        }
        return List.copyOf(gateways);
    }
}
