package io.lbk8s.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Which pool entries the parser refuses as special-purpose, and which near misses it accepts; as a user reads it. */
class SpecialPurposeRangesTest {

    static ConfigResult parse(String entry) {
        return ConfigParser.parse(
                ConfigParserTest.manifests(ConfigParserTest.pool("p", "{addresses: ['" + entry + "']}")));
    }

    @ParameterizedTest(name = "{0} is refused: {1}")
    @CsvSource(delimiter = '|', textBlock = """
            127.0.0.0/8                       | 127.0.0.0/8 (loopback (RFC 1122), never leaves a host)
            127.0.0.1                         | 127.0.0.0/8 (loopback
            0.0.0.0/32                        | 0.0.0.0/8 ("this network"
            0.255.255.255                     | 0.0.0.0/8 ("this network"
            224.0.0.0/24                      | 224.0.0.0/4 (multicast
            239.255.255.255                   | 224.0.0.0/4 (multicast
            169.254.0.0/16                    | 169.254.0.0/16 (link-local
            169.254.255.255                   | 169.254.0.0/16 (link-local
            255.255.255.255/32                | 255.255.255.255/32 (the limited broadcast address
            ::/128                            | ::/128 (the unspecified address
            ::1                               | ::1/128 (loopback
            fe80::/10                         | fe80::/10 (link-local
            febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff | fe80::/10 (link-local
            ff02::1                           | ff00::/8 (multicast
            ::ffff:10.0.0.1                   | ::ffff:0:0/96 (IPv4-mapped
            126.255.255.254-127.0.0.1         | 127.0.0.0/8 (loopback (RFC 1122), never leaves a host) has 127.0.0.0-127.0.0.1 of this range
            223.255.255.255-224.0.0.0         | 224.0.0.0/4 (multicast (RFC 5771), addresses groups, not a host) has 224.0.0.0 of this range
            """)
    void aRangeTouchingASpecialPurposeBlockRefusesItsPool(String entry, String says) {
        ConfigResult result = parse(entry);

        assertThat(result.valid()).isFalse();
        assertThat(result.config().pools()).isEmpty();
        assertThat(result.problems())
                .singleElement()
                .satisfies(p -> assertThat(p.toString())
                        .startsWith("ERROR IPAddressPool metallb-system/p: addresses[0] \"" + entry
                                + "\": includes addresses that are never a host's, so never a Service's: ")
                        .contains(says));
    }

    @ParameterizedTest(name = "{0} is accepted")
    @CsvSource(textBlock = """
            126.255.255.255
            128.0.0.0
            126.0.0.0-126.255.255.255
            223.255.255.255
            223.255.255.0-223.255.255.255
            240.0.0.0
            1.0.0.0
            169.253.255.255
            169.255.0.0
            254.255.255.255
            255.255.255.254
            10.0.0.0/8
            172.16.0.0/12
            192.168.0.0/16
            100.64.0.0/10
            192.0.2.0/24
            198.51.100.0/24
            203.0.113.0/24
            ::2
            fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff
            fec0::1
            fc00::/7
            2001:db8::/32
            feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff
            ::fffe:ffff:ffff
            ::1:0:0:0
            """)
    void nearMissesAreOrdinaryAddresses(String entry) {
        ConfigResult result = parse(entry);

        assertThat(result.problems()).isEmpty();
        assertThat(result.config().pools())
                .singleElement()
                .satisfies(p -> assertThat(p.ranges()).hasSize(1));
    }

    static final String MIXED =
            ConfigParserTest.poolCreated("mixed", "2026-12-01T10:00:00Z", "{addresses: [10.0.0.0/28, 127.0.0.1]}");

    /** An upgrade: a version of lbk8s that accepted everything recorded this pool as in use. */
    @Test
    void aPoolAcceptedBeforeKeepsItsOtherEntriesAndIsToldToRemoveTheSpecialOne() {
        AcceptedConfig recordedByOlderVersion = AcceptedConfig.of(ConfigParserTest.manifests(MIXED));

        AcceptedConfig.Outcome outcome = recordedByOlderVersion.accept(ConfigParserTest.manifests(MIXED));

        assertThat(outcome.result().valid()).isTrue();
        assertThat(outcome.result().config().pools())
                .singleElement()
                .satisfies(p -> assertThat(p.ranges()).extracting(r -> r.text()).containsExactly("10.0.0.0/28"));
        assertThat(outcome.result().problems())
                .extracting(ConfigProblem::toString)
                .containsExactly(
                        "WARNING IPAddressPool metallb-system/mixed: addresses[1] \"127.0.0.1\": includes addresses that are never a"
                                + " host's, so never a Service's: 127.0.0.0/8 (loopback (RFC 1122), never leaves a host); this pool was"
                                + " accepted before lbk8s refused such addresses, so lbk8s keeps using it without this entry: remove the entry");
    }

    @Test
    void theSamePoolAppliedNewIsRefusedWhole() {
        AcceptedConfig.Outcome outcome = AcceptedConfig.NONE.accept(ConfigParserTest.manifests(MIXED));

        assertThat(outcome.result().config().pools()).isEmpty();
        assertThat(outcome.unused()).extracting(Object::toString).containsExactly("IPAddressPool metallb-system/mixed");
        assertThat(outcome.result().problems())
                .extracting(ConfigProblem::toString)
                .singleElement()
                .satisfies(p -> assertThat(p)
                        .startsWith("ERROR IPAddressPool metallb-system/mixed: addresses[1] \"127.0.0.1\""));
    }

    @Test
    void anAcceptedPoolOfOnlySpecialAddressesIsRefused() {
        String loopback = ConfigParserTest.poolCreated("lo", "2026-12-01T10:00:00Z", "{addresses: [127.0.0.0/8]}");

        AcceptedConfig.Outcome outcome =
                AcceptedConfig.of(ConfigParserTest.manifests(loopback)).accept(ConfigParserTest.manifests(loopback));

        assertThat(outcome.result().config().pools()).isEmpty();
        assertThat(outcome.result().problems())
                .extracting(ConfigProblem::toString)
                .last()
                .isEqualTo(
                        "ERROR IPAddressPool metallb-system/lo: addresses: every entry holds special-purpose addresses, so the pool has none to give");
    }

    @Test
    void onlyTheEntryWithSpecialAddressesIsNamedAndEveryBlockItTouches() {
        ConfigResult result = ConfigParser.parse(ConfigParserTest.manifests(
                ConfigParserTest.pool("p", "{addresses: [10.0.0.0/24, 126.0.0.0-169.254.0.0]}"),
                ConfigParserTest.pool("q", "{addresses: [10.0.1.0/24]}")));

        assertThat(result.problems())
                .extracting(ConfigProblem::toString)
                .containsExactly(
                        "ERROR IPAddressPool metallb-system/p: addresses[1] \"126.0.0.0-169.254.0.0\": includes addresses that are"
                                + " never a host's, so never a Service's: 127.0.0.0/8 (loopback (RFC 1122), never leaves a host);"
                                + " 169.254.0.0/16 (link-local (RFC 3927), chosen by each host for itself) has 169.254.0.0 of this range");
        // the other pool keeps working
        assertThat(result.config().pools()).extracting(AddressPool::name).isEqualTo(List.of("q"));
    }
}
