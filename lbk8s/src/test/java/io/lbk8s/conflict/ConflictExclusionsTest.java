package io.lbk8s.conflict;

import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.address.IpAddress;
import io.lbk8s.conflict.AddressConflict.Phase;
import io.lbk8s.conflict.ConflictExclusions.Holder;
import io.lbk8s.conflict.ConflictExclusions.Result;
import io.lbk8s.service.ServiceKey;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ConflictExclusionsTest {
    private static final Instant NOW = Instant.parse("2026-12-03T22:00:00Z");
    private static final IpAddress A = ip("192.168.1.240");
    private static final IpAddress B = ip("192.168.1.241");
    private static final ServiceKey WEB = new ServiceKey("default", "web");
    private static final ServiceKey API = new ServiceKey("default", "api");

    private static IpAddress ip(String text) {
        return IpAddress.parse(text).orElseThrow();
    }

    private static AddressConflict conflict(IpAddress ip, Phase phase, Duration age) {
        Instant seen = NOW.minus(age);
        return new AddressConflict(ip, "52:54:00:aa:bb:cc", "node-a", phase, Optional.empty(), seen, seen, "1");
    }

    private static Result of(List<AddressConflict> conflicts, Map<IpAddress, List<Holder>> holders) {
        return ConflictExclusions.of(conflicts, NOW, ip -> holders.getOrDefault(ip, List.of()));
    }

    @Test
    void anUnheldConflictedAddressIsExcludedWithTheConflictAsItsReason() {
        Result result = of(List.of(conflict(A, Phase.Probe, Duration.ZERO)), Map.of());

        assertThat(result.excluded().why(A)).hasValue("used by another host, 52:54:00:aa:bb:cc (seen by node node-a)");
        assertThat(result.kept()).isEmpty();
        assertThat(result.nextChange()).hasValue(NOW.plus(AddressConflict.STALE_AFTER));
    }

    @Test
    void aHolderThatMovesLeavesTheAddressExcludedAndTheReasonSaysWhy() {
        Result result = of(
                List.of(conflict(A, Phase.Probe, Duration.ZERO)),
                Map.of(A, List.of(new Holder(WEB, false, Optional.empty()))));

        assertThat(result.excluded().why(A)).get().asString().contains("used by another host", "never reachable");
        assertThat(result.kept()).isEmpty();
    }

    @Test
    void aHolderThatKeepsItKeepsTheAddressOutOfTheExcludedOnes() {
        Result result = of(
                List.of(conflict(A, Phase.Announced, Duration.ZERO)),
                Map.of(A, List.of(new Holder(WEB, false, Optional.empty()))));

        assertThat(result.excluded().contains(A)).isFalse();
        assertThat(result.kept()).singleElement().satisfies(k -> {
            assertThat(k.service()).isEqualTo(WEB);
            assertThat(k.why()).contains("while lbk8s announced it");
        });
    }

    @Test
    void sharersKeepTogetherWhenOneOfThemKeeps() {
        Result result = of(
                List.of(conflict(A, Phase.Probe, Duration.ZERO)),
                Map.of(A, List.of(new Holder(WEB, false, Optional.empty()), new Holder(API, true, Optional.empty()))));

        assertThat(result.excluded().contains(A)).isFalse();
        assertThat(result.kept()).extracting(ConflictExclusions.Kept::service).containsExactlyInAnyOrder(WEB, API);
        assertThat(result.kept())
                .filteredOn(k -> k.service().equals(WEB))
                .singleElement()
                .satisfies(k -> assertThat(k.why()).contains("shares the address with default/api"));
    }

    @Test
    void aStaleConflictCountsForNothing() {
        Result result = of(
                List.of(
                        conflict(A, Phase.Probe, Duration.ofMinutes(3)),
                        conflict(B, Phase.Probe, Duration.ofSeconds(90))),
                Map.of());

        assertThat(result.excluded().contains(A)).isFalse();
        assertThat(result.excluded().contains(B)).isTrue();
        assertThat(result.live()).extracting(AddressConflict::address).containsExactly(B);
        assertThat(result.nextChange()).hasValue(NOW.plusSeconds(30));
    }
}
