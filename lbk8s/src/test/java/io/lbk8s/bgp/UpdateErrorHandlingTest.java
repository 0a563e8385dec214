package io.lbk8s.bgp;

import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.address.IpPrefix;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * RFC 7606's revised error handling of a received UPDATE, on hand-built UPDATEs: an error confined to an attribute
 * ends no session; the UPDATE's routes count as withdrawn ("treat-as-withdraw"), or the bad attribute is left out
 * ("attribute discard"); what cannot be parsed is still answered with a NOTIFICATION, the session's end.
 */
class UpdateErrorHandlingTest {
    private static final String ORIGIN = "40010100";
    private static final String AS_PATH = "400200";
    private static final String NEXT_HOP = "4003040a000001";
    /** 198.51.100.0/24 */
    private static final String NLRI = "18c63364";

    @ParameterizedTest(name = "{0}: {3}")
    @CsvSource(delimiter = '|', textBlock = """
            ORIGIN 7 (RFC 7606 7.1)                 | 40010107 400200 4003040a000001                 | 18c63364 | withdraws 198.51.100.0/24
            ORIGIN of 2 octets                      | 4001020000 400200 4003040a000001               | 18c63364 | withdraws 198.51.100.0/24
            ORIGIN flagged optional (3 c)           | 80010100 400200 4003040a000001                 | 18c63364 | withdraws 198.51.100.0/24
            AS_PATH segment type 5 (7.2)            | 40010100 4002060501 0000fde8 4003040a000001    | 18c63364 | withdraws 198.51.100.0/24
            AS_PATH segment overrunning it          | 40010100 4002040205 0000 4003040a000001        | 18c63364 | withdraws 198.51.100.0/24
            NEXT_HOP of 3 octets (7.3)              | 40010100 400200 400303010203                   | 18c63364 | withdraws 198.51.100.0/24
            no NEXT_HOP (3 d)                       | 40010100 400200                                | 18c63364 | withdraws 198.51.100.0/24
            no ORIGIN (3 d)                         | 400200 4003040a000001                          | 18c63364 | withdraws 198.51.100.0/24
            MULTI_EXIT_DISC of 2 octets (7.4)       | 40010100 400200 4003040a000001 80040200 01     | 18c63364 | withdraws 198.51.100.0/24
            LOCAL_PREF of 2 octets (7.5)            | 40010100 400200 4003040a000001 40050200 64     | 18c63364 | withdraws 198.51.100.0/24
            COMMUNITIES of 3 octets (7.8)           | 40010100 400200 4003040a000001 c00803000000    | 18c63364 | withdraws 198.51.100.0/24
            LARGE_COMMUNITY of 11 octets (RFC 8092) | 40010100 400200 4003040a000001 c0200b0000000000000000000000 | 18c63364 | withdraws 198.51.100.0/24
            an IPv6 route with wrong MP flags       | 40010100 400200 400e1e MP_REACH_V6              |          | withdraws fd00::/64
            ATOMIC_AGGREGATE with a value (7.6)     | 40010100 400200 4003040a000001 40060100        | 18c63364 | announces 198.51.100.0/24
            AGGREGATOR of 5 octets (7.7)            | 40010100 400200 4003040a000001 c0070500000000 00 | 18c63364 | announces 198.51.100.0/24
            ORIGIN twice (3 g)                      | 40010100 40010100 400200 4003040a000001        | 18c63364 | announces 198.51.100.0/24
            """)
    void anErrorInOneAttributeEndsNoSession(String what, String attributes, String nlri, String outcome) {
        Decoded decoded = MessageDecoder.decode(HandBuiltUpdates.update(attributes, nlri), true);

        assertThat(decoded).as(what).isInstanceOfSatisfying(Decoded.Revised.class, revised -> {
            assertThat(routes(revised.update())).as(what).isEqualTo(outcome);
            assertThat(revised.reason()).as(what).endsWith("(RFC 7606)");
        });
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            an attribute overrunning the attributes | 40010100 400200 40030a0a000001                 | 18c63364 | UPDATE Message Error / Malformed Attribute List
            MP_REACH_NLRI twice (3 g)               | 40010100 400200 800e1e MP_REACH_V6 800e1e MP_REACH_V6 | | UPDATE Message Error / Malformed Attribute List
            MP_REACH_NLRI next hop of 3 octets      | 40010100 400200 800e0a 00020103 010203 00 40fd00 |          | UPDATE Message Error / Optional Attribute Error
            an IPv4 prefix of /33 (5.3)             | 40010100 400200 4003040a000001                 | 21c6336401 | UPDATE Message Error / Invalid Network Field
            an unrecognized well-known attribute    | 40010100 400200 4003040a000001 406301ff        | 18c63364 | UPDATE Message Error / Unrecognized Well-known Attribute
            """)
    void whatCannotBeParsedStillEndsTheSession(String what, String attributes, String nlri, String expected) {
        Decoded decoded = MessageDecoder.decode(HandBuiltUpdates.update(attributes, nlri), true);

        assertThat(decoded)
                .as(what)
                .isInstanceOfSatisfying(
                        Decoded.Invalid.class,
                        invalid -> assertThat(invalid.notification().describe())
                                .as(invalid.reason())
                                .isEqualTo(expected));
    }

    /** What the UPDATE says of routes: the prefixes it withdraws, else those it announces. */
    private static String routes(Message.Update update) {
        List<IpPrefix> withdrawn = new ArrayList<>(update.withdrawn());
        List<IpPrefix> announced = new ArrayList<>(update.nlri());
        for (PathAttribute attribute : update.attributes()) {
            if (attribute instanceof PathAttribute.MpUnreach unreach) {
                withdrawn.addAll(unreach.withdrawn());
            } else if (attribute instanceof PathAttribute.MpReach reach) {
                announced.addAll(reach.nlri());
            }
        }
        return announced.isEmpty() ? "withdraws " + text(withdrawn) : "announces " + text(announced);
    }

    private static String text(List<IpPrefix> prefixes) {
        return String.join(", ", prefixes.stream().map(IpPrefix::toString).toList());
    }
}
