package io.lbk8s.demo;

import io.lbk8s.address.IpAddress;
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
        return IpAddress.of(address).toString();
    }
}
