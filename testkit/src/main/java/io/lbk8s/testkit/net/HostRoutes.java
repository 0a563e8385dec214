package io.lbk8s.testkit.net;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The IPv4 prefixes the host already uses, so a test subnet never shadows or joins one of them. */
final class HostRoutes {

    private static final Pattern PREFIX =
            Pattern.compile("(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})(?:/(\\d{1,2}))?");
    private static final Set<String> ROUTE_TYPES = Set.of(
            "unicast",
            "local",
            "broadcast",
            "multicast",
            "anycast",
            "unreachable",
            "blackhole",
            "prohibit",
            "throw",
            "nat");

    private HostRoutes() {}

    record Prefix(int network, int length) {

        boolean overlaps(Prefix other) {
            int shorter = Math.min(length, other.length);
            int mask = shorter == 0 ? 0 : -1 << (32 - shorter);
            return (network & mask) == (other.network & mask);
        }

        static Prefix parse(String text) {
            Matcher m = PREFIX.matcher(text);
            if (!m.matches()) {
                return null;
            }
            int address = 0;
            for (int i = 1; i <= 4; i++) {
                address = (address << 8) | Integer.parseInt(m.group(i));
            }
            return new Prefix(address, m.group(5) == null ? 32 : Integer.parseInt(m.group(5)));
        }
    }

    /**
     * Destinations of {@code ip -4 route show table all} (the default route excluded: it overlaps
     * everything and a connected /24 is more specific anyway) and addresses of {@code ip -4 -o addr show}.
     */
    static List<Prefix> inUse(String routes, String addresses) {
        List<Prefix> prefixes = new ArrayList<>();
        routes.lines().forEach(line -> {
            String[] words = line.strip().split("\\s+");
            int destination = words.length > 1 && ROUTE_TYPES.contains(words[0]) ? 1 : 0;
            Prefix prefix = words.length > destination ? Prefix.parse(words[destination]) : null;
            if (prefix != null && prefix.length() > 0) {
                prefixes.add(prefix);
            }
        });
        addresses.lines().forEach(line -> {
            String[] words = line.strip().split("\\s+");
            for (int i = 0; i + 1 < words.length; i++) {
                if (words[i].equals("inet")) {
                    Prefix prefix = Prefix.parse(words[i + 1]);
                    if (prefix != null) {
                        prefixes.add(prefix);
                    }
                }
            }
        });
        return List.copyOf(prefixes);
    }

    static boolean free(int octet, List<Prefix> inUse) {
        Prefix candidate = Prefix.parse("198.18." + octet + ".0/24");
        return inUse.stream().noneMatch(candidate::overlaps);
    }
}
