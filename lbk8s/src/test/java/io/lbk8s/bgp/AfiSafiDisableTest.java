package io.lbk8s.bgp;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * RFC 7606's AFI/SAFI disable on hand-built UPDATEs: an MP_REACH_NLRI or MP_UNREACH_NLRI that cannot be parsed takes
 * its family off a session that carries another, and ends a session that carries only that one; what leaves the
 * AFI/SAFI itself unknown, or is no MP attribute's fault, still ends the session.
 */
class AfiSafiDisableTest {

    @ParameterizedTest(name = "{0}, negotiated {3}, carried {4}: {5}")
    @CsvSource(delimiter = '|', textBlock = """
            IPv6 MP_REACH_NLRI, next hop of 3 octets (7.11) | 40010100 400200 800e0a 00020103 010203 00 40fd00 | | IPv4 IPv6 | IPv4 IPv6 | goes on without IPv6 unicast
            IPv6 MP_REACH_NLRI, a session of IPv6 alone     | 40010100 400200 800e0a 00020103 010203 00 40fd00 | | IPv6      | IPv6      | NOTIFICATION UPDATE Message Error / Optional Attribute Error
            IPv6 MP_REACH_NLRI, IPv6 not negotiated         | 40010100 400200 800e0a 00020103 010203 00 40fd00 | | IPv4      | IPv4      | NOTIFICATION UPDATE Message Error / Optional Attribute Error
            IPv6 MP_REACH_NLRI, IPv6 disabled before        | 40010100 400200 800e0a 00020103 010203 00 40fd00 | | IPv4 IPv6 | IPv4      | goes on without IPv6 unicast
            IPv6 MP_REACH_NLRI of 4 octets                  | 40010100 400200 800e04 00020110                  | | IPv4 IPv6 | IPv4 IPv6 | goes on without IPv6 unicast
            IPv6 MP_UNREACH_NLRI with a /129 (5.3)          | 800f04 000201 81                                 | | IPv4 IPv6 | IPv4 IPv6 | goes on without IPv6 unicast
            IPv4 MP_REACH_NLRI with a /33 (5.3)             | 40010100 400200 800e0a 000101 04 0a000001 00 21  | | IPv4 IPv6 | IPv4 IPv6 | goes on without IPv4 unicast
            IPv4 MP_REACH_NLRI, IPv6 disabled before        | 40010100 400200 800e0a 000101 04 0a000001 00 21  | | IPv4 IPv6 | IPv4      | NOTIFICATION UPDATE Message Error / Optional Attribute Error
            MP_REACH_NLRI of 2 octets: no AFI/SAFI          | 40010100 400200 800e02 0002                      | | IPv4 IPv6 | IPv4 IPv6 | NOTIFICATION UPDATE Message Error / Attribute Length Error
            MP_REACH_NLRI overrunning the attributes        | 40010100 400200 800e1e 00020110                  | | IPv4 IPv6 | IPv4 IPv6 | NOTIFICATION UPDATE Message Error / Malformed Attribute List
            MP_REACH_NLRI twice (3 g)                       | 40010100 400200 800e1e MP_REACH_V6 800e1e MP_REACH_V6 | | IPv4 IPv6 | IPv4 IPv6 | NOTIFICATION UPDATE Message Error / Malformed Attribute List
            an IPv4 prefix of /33 in the NLRI field         | 40010100 400200 4003040a000001                   | 21c6336401 | IPv4 IPv6 | IPv4 IPv6 | NOTIFICATION UPDATE Message Error / Invalid Network Field
            """)
    void anUnreadableMultiprotocolAttributeDisablesItsFamilyWhenAnotherIsLeft(
            String what, String attributes, String nlri, String negotiated, String carried, String outcome) {
        Decoded decoded = MessageDecoder.decode(HandBuiltUpdates.update(attributes, nlri), true);

        assertThat(decoded).as(what).isInstanceOfSatisfying(Decoded.Invalid.class, invalid -> {
            SessionEvent event = AfiSafiDisable.event(invalid, families(negotiated), families(carried));
            assertThat(outcome(event)).as(invalid.reason()).isEqualTo(outcome);
        });
    }

    private static String outcome(SessionEvent event) {
        return switch (event) {
            case SessionEvent.FamilyUnreadable(var family, var _) -> "goes on without " + family.describe();
            case SessionEvent.Refused(var notification, var _) -> "NOTIFICATION " + notification.describe();
            default -> throw new AssertionError(event);
        };
    }

    private static Set<Family> families(String names) {
        return Arrays.stream(names.split(" "))
                .map(n -> n.equals("IPv4") ? Family.IPV4_UNICAST : Family.IPV6_UNICAST)
                .collect(Collectors.toSet());
    }
}
