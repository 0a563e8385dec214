package io.lbk8s.address;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.argumentSet;

import java.math.BigInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class IpPrefixTest {

    /** text → network, last, size, canonical form. */
    static Stream<Arguments> prefixes() {
        return Stream.of(
                argumentSet(
                        "an interface's IPv4 address",
                        "172.18.0.2/16",
                        "172.18.0.0",
                        "172.18.255.255",
                        "65536",
                        "172.18.0.0/16"),
                argumentSet("a network", "10.5.0.0/24", "10.5.0.0", "10.5.0.255", "256", "10.5.0.0/24"),
                argumentSet("/32", "10.5.0.7/32", "10.5.0.7", "10.5.0.7", "1", "10.5.0.7/32"),
                argumentSet("/31", "10.5.0.7/31", "10.5.0.6", "10.5.0.7", "2", "10.5.0.6/31"),
                argumentSet("IPv4 /0", "1.2.3.4/0", "0.0.0.0", "255.255.255.255", "4294967296", "0.0.0.0/0"),
                argumentSet(
                        "IPv6 /64",
                        "fd00::2/64",
                        "fd00::",
                        "fd00::ffff:ffff:ffff:ffff",
                        "18446744073709551616",
                        "fd00::/64"),
                argumentSet(
                        "IPv6 /56",
                        "fd00:1b8:7::11/56",
                        "fd00:1b8:7::",
                        "fd00:1b8:7:ff:ffff:ffff:ffff:ffff",
                        "4722366482869645213696",
                        "fd00:1b8:7::/56"),
                argumentSet("IPv6 /120", "fd00::1:2/120", "fd00::1:0", "fd00::1:ff", "256", "fd00::1:0/120"),
                argumentSet("IPv6 /128", "fd00::9/128", "fd00::9", "fd00::9", "1", "fd00::9/128"),
                argumentSet(
                        "IPv6 /0",
                        "fd00::9/0",
                        "::",
                        "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
                        "340282366920938463463374607431768211456",
                        "::/0"));
    }

    @ParameterizedTest
    @MethodSource("prefixes")
    void firstAndLastAddressSizeAndCanonicalForm(
            String text, String network, String last, String size, String canonical) {
        IpPrefix prefix = IpPrefix.parse(text).orElseThrow();
        assertThat(prefix.toString()).as("kept as written").isEqualTo(text);
        assertThat(prefix.network()).isEqualTo(ip(network));
        assertThat(prefix.last()).isEqualTo(ip(last));
        assertThat(prefix.size()).isEqualTo(new BigInteger(size));
        assertThat(prefix.canonical()).hasToString(canonical);
        assertThat(IpPrefix.around(prefix.address(), prefix.length())).isEqualTo(prefix.canonical());
        assertThat(prefix.contains(ip(network))).isTrue();
        assertThat(prefix.contains(ip(last))).isTrue();
        assertThat(prefix.at(prefix.size().subtract(BigInteger.ONE))).isEqualTo(ip(last));
        assertThat(prefix.offsetOf(ip(last))).isEqualTo(prefix.size().subtract(BigInteger.ONE));
    }

    @Test
    void containsOnlyItsOwnFamilyAndRange() {
        IpPrefix prefix = IpPrefix.parse("10.5.0.0/24").orElseThrow();
        assertThat(prefix.contains(ip("10.4.255.255"))).isFalse();
        assertThat(prefix.contains(ip("10.5.1.0"))).isFalse();
        assertThat(prefix.contains(ip("::ffff:10.5.0.1"))).isFalse();
        assertThat(prefix.at(BigInteger.TEN)).isEqualTo(ip("10.5.0.10"));
        assertThat(prefix.offsetOf(ip("10.5.0.10"))).isEqualTo(BigInteger.TEN);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "10.5.0.0",
                "10.5.0.0/",
                "10.5.0.0/33",
                "10.5.0.0/-1",
                "10.5.0.0/+8",
                "10.5.0.0/08",
                "fd00::/129",
                "10.5.0.300/24",
                "/24",
                "10.5.0.0/24/8",
                "10.5.0.0/ 24"
            })
    void refusesWhatIsNotAPrefix(String text) {
        assertThat(IpPrefix.parse(text)).isEmpty();
    }

    private static IpAddress ip(String text) {
        return IpAddress.parse(text).orElseThrow();
    }
}
