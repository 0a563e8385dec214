package io.lbk8s.demo;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Locale;

/** How the demo writes measured times: seconds with two decimals above one second, whole milliseconds below. */
final class Format {
    private Format() {}

    static String duration(Duration d) {
        long ms = d.toMillis();
        return ms < 1000 ? ms + " ms" : String.format(Locale.ROOT, "%.2f s", ms / 1000.0);
    }

    static String seconds(Duration d) {
        return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
    }

    /** As kubectl and ip print addresses: IPv6 in RFC 5952 form (fd00:1b8:7::200), which Java does not produce. */
    static String address(InetAddress address) {
        if (!(address instanceof Inet6Address)) {
            return address.getHostAddress();
        }
        byte[] bytes = address.getAddress();
        int[] groups = new int[8];
        for (int i = 0; i < 8; i++) {
            groups[i] = ((bytes[2 * i] & 0xff) << 8) | (bytes[2 * i + 1] & 0xff);
        }
        int bestStart = -1;
        int bestLength = 1; // a lone zero group stays "0"
        for (int i = 0; i < 8; ) {
            int j = i;
            while (j < 8 && groups[j] == 0) {
                j++;
            }
            if (j - i > bestLength) {
                bestStart = i;
                bestLength = j - i;
            }
            i = Math.max(i + 1, j);
        }
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                text.append("::");
                i += bestLength - 1;
                continue;
            }
            if (!text.isEmpty() && text.charAt(text.length() - 1) != ':') {
                text.append(':');
            }
            text.append(Integer.toHexString(groups[i]));
        }
        return text.toString();
    }
}
