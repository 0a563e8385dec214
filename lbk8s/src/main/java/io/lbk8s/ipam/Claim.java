package io.lbk8s.ipam;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpFamily;
import io.lbk8s.service.ServiceKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * An address claim as the API server holds it: whoever created the object named {@link #nameOf} its address owns
 * the address, so two controllers can never both give it to different Services. More than one holder only when they
 * share the address under one sharing key.
 *
 * @param version the object's resourceVersion, for writes that must not overwrite a newer one
 */
public record Claim(
        IpAddress address, String pool, Optional<String> sharingKey, List<ClaimHolder> holders, String version) {

    public Claim {
        holders = List.copyOf(holders);
    }

    /**
     * The object name of an address's claim. Object names are DNS subdomains (lowercase letters, digits, '-' and '.',
     * starting and ending with a letter or digit), so an IPv4 address is its own name, and an IPv6 address is written
     * in full, eight groups of four digits joined by '-': one name per address, never two (unlike "::" forms).
     */
    public static String nameOf(IpAddress address) {
        if (address.family() == IpFamily.IPv4) {
            return address.toString();
        }
        StringBuilder name = new StringBuilder(39);
        for (int group = 0; group < 8; group++) {
            long half = group < 4 ? address.high() : address.low();
            int value = (int) (half >>> (48 - 16 * (group % 4))) & 0xffff;
            if (group > 0) {
                name.append('-');
            }
            name.append(String.format("%04x", value));
        }
        return name.toString();
    }

    /** What a controller that wants the address for a holder must do, given the claim already there. */
    public sealed interface Decision {
        /** The holder already holds it. */
        record Held() implements Decision {}

        /** It may share the address: add it to the holders. */
        record Join() implements Decision {}

        /** Every holder is gone (deleted Services): the claim is stale and may be replaced. */
        record Stale() implements Decision {}

        /** Other Services hold it: the address is not free, whatever this controller's memory says. */
        record HeldByOthers(List<ClaimHolder> holders) implements Decision {}
    }

    public Decision decide(ClaimHolder wanting, Optional<String> wantingSharingKey, Predicate<ClaimHolder> exists) {
        if (holders.contains(wanting)) {
            return new Decision.Held();
        }
        List<ClaimHolder> live = heldByOthers(wanting, exists);
        if (live.isEmpty()) {
            return new Decision.Stale();
        }
        if (wantingSharingKey.isPresent() && wantingSharingKey.equals(sharingKey)) {
            return new Decision.Join();
        }
        return new Decision.HeldByOthers(live);
    }

    /**
     * The live Services that hold the address instead of {@code wanting}: none when it is one of the holders (alone or
     * sharing), else every holder that still exists.
     */
    public List<ClaimHolder> heldByOthers(ClaimHolder wanting, Predicate<ClaimHolder> exists) {
        return holders.contains(wanting)
                ? List.of()
                : holders.stream().filter(exists).toList();
    }

    public boolean heldBy(ServiceKey service) {
        return holders.stream().anyMatch(h -> h.service().equals(service));
    }

    public Claim with(ClaimHolder holder) {
        List<ClaimHolder> more = new ArrayList<>(holders);
        more.add(holder);
        return new Claim(address, pool, sharingKey, more, version);
    }

    /** The claim without the service; empty when it was its last holder (the claim is then deleted). */
    public Optional<Claim> without(ServiceKey service) {
        List<ClaimHolder> rest =
                holders.stream().filter(h -> !h.service().equals(service)).toList();
        return rest.isEmpty() ? Optional.empty() : Optional.of(new Claim(address, pool, sharingKey, rest, version));
    }
}
