package io.lbk8s.ipam;

import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.address.IpAddress;
import io.lbk8s.service.ServiceKey;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ClaimTest {
    /** What the API server accepts as the name of a cluster-scoped custom object (a DNS subdomain). */
    private static final Pattern DNS_SUBDOMAIN =
            Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

    private static final ClaimHolder WEB = new ClaimHolder(new ServiceKey("default", "web"), "uid-web");
    private static final ClaimHolder WEB_RECREATED = new ClaimHolder(new ServiceKey("default", "web"), "uid-web-2");
    private static final ClaimHolder DNS = new ClaimHolder(new ServiceKey("kube-system", "dns"), "uid-dns");
    private static final ClaimHolder API = new ClaimHolder(new ServiceKey("default", "api"), "uid-api");

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "10.5.0.200,                    10.5.0.200",
        "0.0.0.0,                       0.0.0.0",
        "255.255.255.255,               255.255.255.255",
        "fd00::1,                       fd00-0000-0000-0000-0000-0000-0000-0001",
        "FD00:0:0:0:0:0:0:1,            fd00-0000-0000-0000-0000-0000-0000-0001",
        "::,                            0000-0000-0000-0000-0000-0000-0000-0000",
        "::1,                           0000-0000-0000-0000-0000-0000-0000-0001",
        "fd00::,                        fd00-0000-0000-0000-0000-0000-0000-0000",
        "2001:db8:abcd:12::ff:fe00:1,   2001-0db8-abcd-0012-0000-00ff-fe00-0001",
        "::ffff:10.0.0.1,               0000-0000-0000-0000-0000-ffff-0a00-0001",
    })
    void theNameIsDerivedFromTheAddressAndIsAValidObjectName(String address, String name) {
        String derived = Claim.nameOf(IpAddress.parse(address).orElseThrow());
        assertThat(derived).isEqualTo(name).matches(DNS_SUBDOMAIN).hasSizeLessThanOrEqualTo(253);
    }

    @Test
    void distinctAddressesNeverShareAName() {
        Set<String> names = new HashSet<>();
        List<String> addresses = List.of(
                "10.0.0.1",
                "10.0.0.10",
                "10.0.1.0",
                "fd00::1",
                "fd00::1:0",
                "fd00:0:0:1::",
                "::a00:1",
                "::ffff:10.0.0.1",
                "1::",
                "::1");
        for (String address : addresses) {
            names.add(Claim.nameOf(IpAddress.parse(address).orElseThrow()));
        }
        assertThat(names).hasSameSizeAs(addresses);
    }

    record Case(
            String why,
            List<ClaimHolder> holders,
            Optional<String> claimKey,
            ClaimHolder wanting,
            Optional<String> wantingKey,
            Set<ClaimHolder> existing,
            Class<? extends Claim.Decision> expected) {}

    @Test
    void whatAControllerMayDoWithAClaimAlreadyThere() {
        List<Case> cases = List.of(
                new Case(
                        "its own claim",
                        List.of(WEB),
                        Optional.empty(),
                        WEB,
                        Optional.empty(),
                        Set.of(WEB),
                        Claim.Decision.Held.class),
                new Case(
                        "one of the sharers already",
                        List.of(DNS, WEB),
                        Optional.of("k"),
                        WEB,
                        Optional.of("k"),
                        Set.of(WEB, DNS),
                        Claim.Decision.Held.class),
                new Case(
                        "another live Service's",
                        List.of(DNS),
                        Optional.empty(),
                        WEB,
                        Optional.empty(),
                        Set.of(WEB, DNS),
                        Claim.Decision.HeldByOthers.class),
                new Case(
                        "a Service recreated under the same name is another Service",
                        List.of(WEB),
                        Optional.empty(),
                        WEB_RECREATED,
                        Optional.empty(),
                        Set.of(WEB, WEB_RECREATED),
                        Claim.Decision.HeldByOthers.class),
                new Case(
                        "same sharing key: join",
                        List.of(DNS),
                        Optional.of("k"),
                        WEB,
                        Optional.of("k"),
                        Set.of(WEB, DNS),
                        Claim.Decision.Join.class),
                new Case(
                        "another sharing key",
                        List.of(DNS),
                        Optional.of("k"),
                        WEB,
                        Optional.of("other"),
                        Set.of(WEB, DNS),
                        Claim.Decision.HeldByOthers.class),
                new Case(
                        "the claim has a key, the Service none",
                        List.of(DNS),
                        Optional.of("k"),
                        WEB,
                        Optional.empty(),
                        Set.of(WEB, DNS),
                        Claim.Decision.HeldByOthers.class),
                new Case(
                        "the Service has a key, the claim none",
                        List.of(DNS),
                        Optional.empty(),
                        WEB,
                        Optional.of("k"),
                        Set.of(WEB, DNS),
                        Claim.Decision.HeldByOthers.class),
                new Case(
                        "its holder was deleted: stale",
                        List.of(DNS),
                        Optional.empty(),
                        WEB,
                        Optional.empty(),
                        Set.of(WEB),
                        Claim.Decision.Stale.class),
                new Case(
                        "the old Service of this name was deleted: stale",
                        List.of(WEB),
                        Optional.empty(),
                        WEB_RECREATED,
                        Optional.empty(),
                        Set.of(WEB_RECREATED),
                        Claim.Decision.Stale.class),
                new Case(
                        "one of two sharers left: still held",
                        List.of(DNS, API),
                        Optional.of("k"),
                        WEB,
                        Optional.empty(),
                        Set.of(WEB, API),
                        Claim.Decision.HeldByOthers.class));
        for (Case c : cases) {
            Claim claim =
                    new Claim(IpAddress.parse("10.0.0.1").orElseThrow(), "default", c.claimKey(), c.holders(), "1");
            assertThat(claim.decide(c.wanting(), c.wantingKey(), c.existing()::contains))
                    .as(c.why())
                    .isInstanceOf(c.expected());
        }
    }

    @Test
    void heldByOthersNamesOnlyTheLiveHolders() {
        Claim claim =
                new Claim(IpAddress.parse("10.0.0.1").orElseThrow(), "p", Optional.of("k"), List.of(DNS, API), "1");
        assertThat(claim.decide(WEB, Optional.empty(), Set.of(API)::contains))
                .isEqualTo(new Claim.Decision.HeldByOthers(List.of(API)));
    }

    @Test
    void aSharerIsNotHeldOffByTheServicesItSharesWith() {
        Claim shared =
                new Claim(IpAddress.parse("10.0.0.1").orElseThrow(), "p", Optional.of("k"), List.of(DNS, WEB), "1");
        assertThat(shared.heldByOthers(WEB, Set.of(DNS, WEB)::contains)).isEmpty();
        assertThat(shared.heldByOthers(API, Set.of(DNS, WEB)::contains)).containsExactly(DNS, WEB);
        assertThat(shared.heldByOthers(API, Set.of(WEB)::contains)).containsExactly(WEB);
    }

    @Test
    void removingTheLastHolderLeavesNoClaim() {
        Claim shared = new Claim(IpAddress.parse("10.0.0.1").orElseThrow(), "p", Optional.of("k"), List.of(DNS), "7")
                .with(WEB);
        assertThat(shared.holders()).containsExactly(DNS, WEB);
        assertThat(shared.heldBy(WEB.service())).isTrue();
        Claim onlyDns = shared.without(WEB.service()).orElseThrow();
        assertThat(onlyDns.holders()).containsExactly(DNS);
        assertThat(onlyDns.heldBy(WEB.service())).isFalse();
        assertThat(onlyDns.version()).isEqualTo("7");
        assertThat(onlyDns.without(DNS.service())).isEmpty();
    }
}
