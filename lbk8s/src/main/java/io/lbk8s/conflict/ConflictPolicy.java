package io.lbk8s.conflict;

import io.lbk8s.service.Annotations;
import java.util.Locale;
import java.util.Optional;

/**
 * What happens to a Service whose address another host uses. Pure.
 *
 * <p>By default the controller moves a Service off an address that failed its first probe: lbk8s never made that
 * address reachable, so the Service loses nothing and gets one that works. It keeps an address that another host took
 * while lbk8s announced it, and warns: clients, DNS records and firewall rules already know that address, and the other
 * host may be a passing mistake (a laptop with a static address, a VM started twice). A Service that asked for the
 * address keeps it whatever the policy: lbk8s does not choose another address for a Service that chose its own. The
 * annotation {@value #ANNOTATION} ({@code keep} or {@code move}) overrides the default.
 */
public enum ConflictPolicy {
    KEEP,
    MOVE;

    public static final String ANNOTATION = Annotations.ADDRESS_CONFLICT;

    /** What the controller does with the Service, and why, in words for its Event. */
    public sealed interface Decision {
        String why();

        record Keep(String why) implements Decision {}

        record Move(String why) implements Decision {}
    }

    /** The annotation's value; empty when absent, an error sentence when it is neither keep nor move. */
    public sealed interface Parsed {
        record Chosen(Optional<ConflictPolicy> policy) implements Parsed {}

        record Invalid(String message) implements Parsed {}
    }

    public static Parsed parse(Optional<String> annotation) {
        if (annotation.isEmpty()) {
            return new Parsed.Chosen(Optional.empty());
        }
        return switch (annotation.get().trim().toLowerCase(Locale.ROOT)) {
            case "keep" -> new Parsed.Chosen(Optional.of(KEEP));
            case "move" -> new Parsed.Chosen(Optional.of(MOVE));
            default ->
                new Parsed.Invalid(
                        ANNOTATION + " is \"" + annotation.get() + "\"; it must be keep or move (the "
                                + "default applies: move off an address that failed its first probe, keep one taken while announced)");
        };
    }

    /**
     * @param requested whether the Service asked for this address (loadBalancerIP or a loadBalancerIPs annotation)
     * @param chosen    the Service's {@value #ANNOTATION}, if set
     */
    public static Decision decide(AddressConflict conflict, boolean requested, Optional<ConflictPolicy> chosen) {
        String address = conflict.address().toString();
        if (requested) {
            return new Decision.Keep("the Service asked for " + address + ", so it keeps it; it is unreachable through"
                    + " lbk8s until the other host leaves");
        }
        if (chosen.isPresent()) {
            return chosen.get() == MOVE
                    ? new Decision.Move(ANNOTATION + " is move")
                    : new Decision.Keep(ANNOTATION + " is keep; " + address + " is unreachable through lbk8s until the"
                            + " other host leaves");
        }
        return switch (conflict.phase()) {
            case Probe ->
                new Decision.Move(
                        address + " was never reachable through lbk8s (the other host answered" + " its first probe)");
            case Announced ->
                new Decision.Keep("the other host took " + address + " while lbk8s announced it; the"
                        + " Service keeps it until the other host leaves (set " + ANNOTATION + ": move to move it)");
        };
    }
}
