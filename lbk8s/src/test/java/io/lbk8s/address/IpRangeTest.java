package io.lbk8s.address;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.argumentSet;

import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class IpRangeTest {

    /** entry → first, last, size. */
    static Stream<Arguments> validCases() {
        return Stream.of(
                argumentSet("single /32", "192.0.2.10/32", "192.0.2.10", "192.0.2.10", 1L),
                argumentSet("/24", "10.0.0.0/24", "10.0.0.0", "10.0.0.255", 256L),
                argumentSet("/0", "0.0.0.0/0", "0.0.0.0", "255.255.255.255", 1L << 32),
                argumentSet("/31", "10.0.0.0/31", "10.0.0.0", "10.0.0.1", 2L),
                argumentSet("host bits set, as net.ParseCIDR", "10.0.0.7/24", "10.0.0.0", "10.0.0.255", 256L),
                argumentSet("dash range", "203.0.113.75-203.0.113.78", "203.0.113.75", "203.0.113.78", 4L),
                argumentSet("dash range with spaces", "10.5.0.200 - 10.5.0.220", "10.5.0.200", "10.5.0.220", 21L),
                argumentSet("one-address dash range", "10.0.0.1-10.0.0.1", "10.0.0.1", "10.0.0.1", 1L),
                argumentSet("bare address", "10.0.0.1", "10.0.0.1", "10.0.0.1", 1L),
                argumentSet("surrounding spaces", "  10.0.0.0/30 ", "10.0.0.0", "10.0.0.3", 4L),
                argumentSet("ipv6 /128", "fd00::1/128", "fd00::1", "fd00::1", 1L),
                argumentSet("ipv6 /120", "fd00::/120", "fd00::", "fd00::ff", 256L),
                argumentSet("ipv6 /64", "fd00::/64", "fd00::", "fd00::ffff:ffff:ffff:ffff", Long.MAX_VALUE),
                argumentSet(
                        "ipv6 /65",
                        "fd00:0:0:0:8000::/65",
                        "fd00::8000:0:0:0",
                        "fd00::ffff:ffff:ffff:ffff",
                        Long.MAX_VALUE),
                argumentSet("ipv6 /63", "fd00::/63", "fd00::", "fd00::1:ffff:ffff:ffff:ffff", Long.MAX_VALUE),
                argumentSet("ipv6 /0", "::/0", "::", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", Long.MAX_VALUE),
                argumentSet("ipv6 range", "fd00::10-fd00::1f", "fd00::10", "fd00::1f", 16L),
                argumentSet(
                        "ipv6 range across the halves",
                        "fd00::ffff:ffff:ffff:ffff-fd00:0:0:1::",
                        "fd00::ffff:ffff:ffff:ffff",
                        "fd00:0:0:1::",
                        2L));
    }

    @ParameterizedTest
    @MethodSource("validCases")
    void parsesValid(String text, String first, String last, long size) {
        IpRange.Parsed parsed = IpRange.parse(text);
        assertThat(parsed).isInstanceOf(IpRange.Parsed.Valid.class);
        IpRange range = ((IpRange.Parsed.Valid) parsed).range();
        assertThat(range.first()).hasToString(first);
        assertThat(range.last()).hasToString(last);
        assertThat(range.size()).isEqualTo(size);
        assertThat(range.text()).isEqualTo(text.strip());
    }

    /** entry → the exact reason. */
    static Stream<Arguments> invalidCases() {
        return Stream.of(
                argumentSet("octet too big in CIDR", "10.0.0.300/24", "\"10.0.0.300\" is not an IP address"),
                argumentSet(
                        "prefix too long v4",
                        "10.0.0.0/33",
                        "prefix length /33 is longer than the 32 bits of an IPv4 address"),
                argumentSet(
                        "prefix too long v6",
                        "fd00::/129",
                        "prefix length /129 is longer than the 128 bits of an IPv6 address"),
                argumentSet("prefix not a number", "10.0.0.0/abc", "\"abc\" is not a prefix length"),
                argumentSet("prefix empty", "10.0.0.0/", "\"\" is not a prefix length"),
                argumentSet("prefix negative", "10.0.0.0/-1", "\"10.0.0.0/\" is not an IP address"),
                argumentSet("prefix with leading zero", "10.0.0.0/024", "\"024\" is not a prefix length"),
                argumentSet("reversed range", "10.0.0.9-10.0.0.1", "the range is reversed: 10.0.0.9 is above 10.0.0.1"),
                argumentSet(
                        "reversed ipv6 range", "fd00::9-fd00::1", "the range is reversed: fd00::9 is above fd00::1"),
                argumentSet("range mixing families", "10.0.0.1-fd00::1", "the range mixes IPv4 and IPv6"),
                argumentSet("range with bad end", "10.0.0.1-10.0.0.256", "\"10.0.0.256\" is not an IP address"),
                argumentSet("range with bad start", "10.0.0-10.0.0.5", "\"10.0.0\" is not an IP address"),
                argumentSet("range missing end", "10.0.0.1-", "a range needs an address on both sides of the \"-\""),
                argumentSet("range of CIDRs", "10.0.0.0/24-10.0.1.0/24", "\"10.0.0.0/24\" is not an IP address"),
                argumentSet("garbage", "banana", "\"banana\" is not a CIDR, a range or an IP address"),
                argumentSet("empty", "", "an empty string is not a CIDR, a range or an IP address"),
                argumentSet("blank", "   ", "an empty string is not a CIDR, a range or an IP address"));
    }

    @ParameterizedTest
    @MethodSource("invalidCases")
    void refusesInvalid(String text, String reason) {
        assertThat(IpRange.parse(text)).isEqualTo(new IpRange.Parsed.Invalid(reason));
    }

    private static IpRange range(String text) {
        return ((IpRange.Parsed.Valid) IpRange.parse(text)).range();
    }

    @Test
    void overlapsAndContains() {
        assertThat(range("10.0.0.0/24").overlaps(range("10.0.0.255-10.0.1.5"))).isTrue();
        assertThat(range("10.0.0.0/24").overlaps(range("10.0.1.0/24"))).isFalse();
        assertThat(range("10.0.0.0/24").overlaps(range("::ffff:10.0.0.0/120"))).isFalse();
        assertThat(range("fd00::/120").contains(IpAddress.parse("fd00::ff").orElseThrow()))
                .isTrue();
        assertThat(range("fd00::/120").contains(IpAddress.parse("fd00::100").orElseThrow()))
                .isFalse();
        assertThat(range("10.0.0.0/30").at(3))
                .contains(IpAddress.parse("10.0.0.3").orElseThrow());
        assertThat(range("10.0.0.0/30").at(4)).isEmpty();
    }

    @Test
    void knowsHostBits() {
        assertThat(range("10.0.0.7/24").isCidrWithHostBits()).isTrue();
        assertThat(range("10.0.0.0/24").isCidrWithHostBits()).isFalse();
        assertThat(range("10.0.0.7").isCidrWithHostBits()).isFalse();
        assertThat(range("10.0.0.7-10.0.0.9").isCidrWithHostBits()).isFalse();
        assertThat(range("fd00::1/120").isCidrWithHostBits()).isTrue();
    }
}
