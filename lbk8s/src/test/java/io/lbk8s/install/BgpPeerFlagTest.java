package io.lbk8s.install;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.argumentSet;

import io.lbk8s.cli.CliRun;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@code lbk8s install --bgp-peer}: what a user types, and the sentence (and exit code 2, as for any bad flag) a mistake gets. */
class BgpPeerFlagTest {
    /** A client-side dry run reads no cluster. */
    static final Path NO_CLUSTER = Path.of("no-such-kubeconfig");

    static Stream<Arguments> mistakes() {
        String form = "; write ADDRESS,asn=PEER_ASN[,my-asn=MY_ASN][,name=NAME], e.g. 192.168.1.1,asn=64501";
        return Stream.of(
                argumentSet(
                        "no AS number",
                        List.of("192.168.1.1"),
                        "error: --bgp-peer \"192.168.1.1\": asn= is required (the router's AS number)" + form),
                argumentSet(
                        "the colon form of other tools",
                        List.of("192.168.1.1:64501"),
                        "error: --bgp-peer \"192.168.1.1:64501\": \"192.168.1.1:64501\" is not an IP address" + form),
                argumentSet(
                        "AS 0",
                        List.of("192.168.1.1,asn=0"),
                        "error: --bgp-peer \"192.168.1.1,asn=0\": asn=0 is not an AS number (1-4294967295)"),
                argumentSet(
                        "an AS beyond 4 bytes",
                        List.of("192.168.1.1,asn=64501,my-asn=4294967296"),
                        "error: --bgp-peer \"192.168.1.1,asn=64501,my-asn=4294967296\": my-asn=4294967296 is not an AS number (1-4294967295)"),
                argumentSet(
                        "an unknown setting",
                        List.of("192.168.1.1,asn=64501,password=x"),
                        "error: --bgp-peer \"192.168.1.1,asn=64501,password=x\": \"password=x\" is not one of asn=, my-asn= or name="
                                + form),
                argumentSet(
                        "a setting twice",
                        List.of("192.168.1.1,asn=64501,asn=64502"),
                        "error: --bgp-peer \"192.168.1.1,asn=64501,asn=64502\": asn= is given twice"),
                argumentSet(
                        "a name Kubernetes refuses",
                        List.of("192.168.1.1,asn=64501,name=Router_1"),
                        "error: --bgp-peer \"192.168.1.1,asn=64501,name=Router_1\": name=Router_1 is not a valid object name (lowercase letters, digits and '-', at most 63)"),
                argumentSet(
                        "one router twice",
                        List.of("192.168.1.1,asn=64501", "192.168.1.1,asn=64502,name=other"),
                        "error: --bgp-peer: 192.168.1.1 is given twice; give each router once"),
                argumentSet(
                        "one name twice",
                        List.of("192.168.1.1,asn=64501,name=r", "192.168.1.2,asn=64501,name=r"),
                        "error: --bgp-peer: the name \"r\" is given twice; name each router differently (name=...)"));
    }

    @ParameterizedTest
    @MethodSource("mistakes")
    void aMistakeIsOneSentenceAndExitCode2LikeAnyBadFlag(List<String> peers, String expected) {
        CliRun run = CliRun.of(NO_CLUSTER, args(peers));
        assertThat(run.code()).isEqualTo(2);
        assertThat(run.err().strip()).isEqualTo(expected + " (see lbk8s install --help)");
        assertThat(run.out()).isEmpty();
    }

    @Test
    void eachPeerBecomesABgpPeerAndThePoolIsAdvertisedToThem() {
        CliRun run = CliRun.of(
                NO_CLUSTER,
                args(List.of("192.168.1.1,asn=64501", "fd00::1,asn=4200000000,my-asn=64500,name=v6-router")));
        assertThat(run.code()).as(run.err()).isZero();
        String yaml = run.out();
        assertThat(yaml).contains("""
                        kind: BGPPeer
                        metadata:
                          labels:
                            app.kubernetes.io/name: lbk8s
                            app.kubernetes.io/managed-by: lbk8s-install
                          name: peer-192-168-1-1
                          namespace: lbk8s-system
                        spec:
                          myASN: 64512
                          peerASN: 64501
                          peerAddress: 192.168.1.1
                        """).contains("""
                          name: v6-router
                          namespace: lbk8s-system
                        spec:
                          myASN: 64500
                          peerASN: 4200000000
                          peerAddress: fd00::1
                        """).contains("""
                        kind: BGPAdvertisement
                        metadata:
                          labels:
                            app.kubernetes.io/name: lbk8s
                            app.kubernetes.io/managed-by: lbk8s-install
                          name: default
                          namespace: lbk8s-system
                        spec:
                          ipAddressPools:
                          - default
                        """);
    }

    @Test
    void withoutTheFlagNoBgpObjectIsRendered() {
        CliRun run = CliRun.of(NO_CLUSTER, args(List.of()));
        assertThat(run.code()).as(run.err()).isZero();
        assertThat(run.out())
                .doesNotContain("kind: BGPPeer\nmetadata")
                .doesNotContain("kind: BGPAdvertisement\nmetadata");
    }

    static String[] args(List<String> peers) {
        List<String> args = new ArrayList<>(List.of("install", "--dry-run", "-o", "yaml"));
        peers.forEach(p -> {
            args.add("--bgp-peer");
            args.add(p);
        });
        return args.toArray(String[]::new);
    }
}
