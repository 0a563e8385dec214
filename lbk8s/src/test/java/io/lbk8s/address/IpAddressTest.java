package io.lbk8s.address;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.argumentSet;

import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class IpAddressTest {

    /** input text → canonical text, or null when it must not parse. */
    static Stream<Arguments> parseCases() {
        return Stream.of(
                argumentSet("ipv4", "192.0.2.10", "192.0.2.10"),
                argumentSet("ipv4 zero", "0.0.0.0", "0.0.0.0"),
                argumentSet("ipv4 broadcast", "255.255.255.255", "255.255.255.255"),
                argumentSet("ipv4 octet too big", "10.0.0.300", null),
                argumentSet("ipv4 leading zero refused (octal ambiguity)", "010.0.0.1", null),
                argumentSet("ipv4 leading zero in last octet", "10.0.0.01", null),
                argumentSet("ipv4 three parts", "10.0.1", null),
                argumentSet("ipv4 five parts", "10.0.0.1.2", null),
                argumentSet("ipv4 trailing dot", "10.0.0.1.", null),
                argumentSet("ipv4 with spaces", " 10.0.0.1", null),
                argumentSet("host name never resolved", "localhost", null),
                argumentSet("empty", "", null),
                argumentSet("ipv6 compressed", "fd00::1", "fd00::1"),
                argumentSet("ipv6 uppercase", "FD00:0:0:0:0:0:0:1", "fd00::1"),
                argumentSet("ipv6 all zeros", "::", "::"),
                argumentSet("ipv6 loopback", "0:0:0:0:0:0:0:1", "::1"),
                argumentSet("ipv6 single zero group not compressed", "2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"),
                argumentSet("ipv6 longest run compressed", "2001:0:0:1:0:0:0:1", "2001:0:0:1::1"),
                argumentSet("ipv6 first of equal runs compressed", "2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"),
                argumentSet("ipv6 leading zeros in groups", "2001:0db8::0001", "2001:db8::1"),
                argumentSet("ipv6 trailing run", "fd00:1::", "fd00:1::"),
                argumentSet("ipv6 nine groups", "1:2:3:4:5:6:7:8:9", null),
                argumentSet("ipv6 two double colons", "fd00::1::2", null),
                argumentSet("ipv6 zone refused", "fe80::1%eth0", null),
                argumentSet("ipv6 brackets refused", "[fd00::1]", null),
                argumentSet("ipv4-mapped stays IPv6", "::ffff:10.0.0.1", "::ffff:10.0.0.1"),
                argumentSet("ipv4-mapped in hex stays IPv6", "::ffff:a00:1", "::ffff:10.0.0.1"),
                argumentSet("ipv4-compatible", "::1.2.3.4", "::102:304"),
                argumentSet("embedded quad with leading zero", "::ffff:010.0.0.1", null));
    }

    @ParameterizedTest
    @MethodSource("parseCases")
    void parses(String text, String canonical) {
        var parsed = IpAddress.parse(text);
        if (canonical == null) {
            assertThat(parsed).as(text).isEmpty();
        } else {
            assertThat(parsed).as(text).isPresent();
            assertThat(parsed.get().toString()).isEqualTo(canonical);
            assertThat(IpAddress.parse(canonical)).contains(parsed.get());
        }
    }

    @Test
    void familyFollowsNotation() {
        assertThat(IpAddress.parse("10.0.0.1").orElseThrow().family()).isEqualTo(IpFamily.IPv4);
        assertThat(IpAddress.parse("::ffff:10.0.0.1").orElseThrow().family()).isEqualTo(IpFamily.IPv6);
    }

    @Test
    void ordersV4BeforeV6AndNumerically() {
        IpAddress a = IpAddress.parse("10.0.0.2").orElseThrow();
        IpAddress b = IpAddress.parse("10.0.0.10").orElseThrow();
        IpAddress c = IpAddress.parse("::1").orElseThrow();
        IpAddress d = IpAddress.parse("8000::").orElseThrow();
        assertThat(a).isLessThan(b);
        assertThat(b).isLessThan(c);
        assertThat(c).isLessThan(d); // unsigned comparison of the high half
    }

    @Test
    void arithmetic() {
        IpAddress top = IpAddress.parse("255.255.255.255").orElseThrow();
        assertThat(top.plus(1)).isEmpty();
        assertThat(IpAddress.parse("10.0.0.255").orElseThrow().plus(1).orElseThrow())
                .hasToString("10.0.1.0");
        IpAddress carry = IpAddress.parse("fd00::ffff:ffff:ffff:ffff").orElseThrow();
        assertThat(carry.plus(1).orElseThrow()).hasToString("fd00:0:0:1::");
        assertThat(IpAddress.parse("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff")
                        .orElseThrow()
                        .plus(1))
                .isEmpty();
        assertThat(carry.plus(1).orElseThrow().distanceFrom(carry)).isEqualTo(1);
        assertThat(IpAddress.parse("fd01::")
                        .orElseThrow()
                        .distanceFrom(IpAddress.parse("fd00::").orElseThrow()))
                .isEqualTo(Long.MAX_VALUE);
        assertThat(IpAddress.ofBytes(top.toBytes())).isEqualTo(top);
        assertThat(IpAddress.ofBytes(carry.toBytes())).isEqualTo(carry);
    }
}
