package io.lbk8s.net;

import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.address.IpAddress;
import io.lbk8s.net.bpf.BpfProgram;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AnnouncedSetTest {

    private static final List<String> ANNOUNCED = List.of(
            "0.0.0.1",
            "10.0.0.5",
            "127.255.255.255",
            "128.0.0.0",
            "192.168.1.200",
            "255.255.255.255",
            "::1",
            "fd00::200",
            "fd00::1:0:0:0:200",
            "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
            "2001:db8::7");

    /** Addresses on both sides of the sign bit of each word, which a signed sort must not misplace. */
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "0.0.0.1, true",
        "0.0.0.0, false",
        "10.0.0.5, true",
        "10.0.0.6, false",
        "127.255.255.255, true",
        "128.0.0.0, true",
        "128.0.0.1, false",
        "192.168.1.200, true",
        "192.168.1.201, false",
        "255.255.255.255, true",
        "255.255.255.254, false",
        "::1, true",
        "::2, false",
        "fd00::200, true",
        "fd00::201, false",
        "fd00::1:0:0:0:200, true",
        "fd00::2:0:0:0:200, false",
        "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff, true",
        "ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe, false",
        "2001:db8::7, true",
        "2001:db8::8, false",
        "::ffff:10.0.0.5, false"
    })
    void findsExactlyTheAnnouncedAddresses(String text, boolean announced) {
        Map<IpAddress, AddressCounters> counters = new HashMap<>();
        AnnouncedSet set = AnnouncedSet.of(ips(ANNOUNCED), ip -> counters.computeIfAbsent(ip, i -> n -> {}));
        IpAddress ip = ip(text);
        assertThat(set.contains(ip)).isEqualTo(announced);
        AddressCounters found = ip.isV4() ? set.v4((int) ip.low()) : set.v6(ip.high(), ip.low());
        assertThat(found).isSameAs(announced ? counters.get(ip) : null);
    }

    @Test
    void eachAddressCountsOnItsOwnCounters() {
        Map<IpAddress, int[]> counts = new HashMap<>();
        AnnouncedSet set = AnnouncedSet.of(ips(ANNOUNCED), ip -> {
            int[] count = counts.computeIfAbsent(ip, i -> new int[1]);
            return n -> count[0] += (int) n;
        });
        for (IpAddress ip : ips(ANNOUNCED)) {
            (ip.isV4() ? set.v4((int) ip.low()) : set.v6(ip.high(), ip.low())).answered(1);
        }
        set.v4((int) ip("10.0.0.5").low()).answered(1);
        assertThat(counts).hasSize(ANNOUNCED.size());
        counts.forEach(
                (ip, count) -> assertThat(count[0]).as(ip.toString()).isEqualTo(ip.equals(ip("10.0.0.5")) ? 2 : 1));
    }

    @Test
    void duplicatesAreOneAddressAndTheEmptySetAnswersNothing() {
        List<IpAddress> twice = new ArrayList<>(ips(List.of("10.0.0.5", "fd00::200")));
        twice.addAll(ips(List.of("10.0.0.5", "fd00::200")));
        int[] asked = new int[1];
        AnnouncedSet set = AnnouncedSet.of(twice, ip -> {
            asked[0]++;
            return AddressCounters.NONE;
        });
        assertThat(set.addresses()).containsExactly(ip("10.0.0.5"), ip("fd00::200"));
        assertThat(asked[0]).isEqualTo(2);
        assertThat(AnnouncedSet.EMPTY.contains(ip("10.0.0.5"))).isFalse();
        assertThat(AnnouncedSet.EMPTY.v6(0, 1)).isNull();
    }

    @Test
    void filtersNameTheAnnouncedTargets() {
        AnnouncedSet set = AnnouncedSet.of(ips(List.of("192.168.1.200", "fd00::1:2:3:4")), ip -> AddressCounters.NONE);
        assertThat(set.arpFilter()).isEqualTo(BpfProgram.arpRequestsFor(new int[] {0xc0a8_01c8}));
        assertThat(set.ndpFilter()).isEqualTo(BpfProgram.neighborSolicitationsFor(new int[] {0x0003_0004}));
    }

    private static List<IpAddress> ips(List<String> texts) {
        return texts.stream().map(AnnouncedSetTest::ip).toList();
    }

    private static IpAddress ip(String text) {
        return IpAddress.parse(text).orElseThrow();
    }
}
