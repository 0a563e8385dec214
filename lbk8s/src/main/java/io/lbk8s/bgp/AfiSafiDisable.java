package io.lbk8s.bgp;

import java.util.Set;

/**
 * RFC 7606's "AFI/SAFI disable" (its 5.3 and 7.11, after RFC 4760 7): an UPDATE whose MP_REACH_NLRI or
 * MP_UNREACH_NLRI cannot be parsed, but whose AFI/SAFI can, need not end a session that carries another family: that
 * family alone is taken off the session. The NOTIFICATION stands when the AFI/SAFI cannot be read, is not one the
 * session negotiated, or is the only family it still carries (the session would carry nothing).
 */
public final class AfiSafiDisable {
    private AfiSafiDisable() {}

    /**
     * What the session does about an UPDATE it cannot parse.
     *
     * @param negotiated the families both OPENs announced; empty before the OPENs were exchanged
     * @param carried    those the session carries now: {@code negotiated} less the families disabled before
     */
    public static SessionEvent event(Decoded.Invalid invalid, Set<Family> negotiated, Set<Family> carried) {
        if (invalid.family().isPresent()) {
            Family family = invalid.family().get();
            // a family already disabled: its routes are ignored (RFC 4760 7), however broken
            boolean disabledBefore = negotiated.contains(family) && !carried.contains(family);
            boolean othersLeft = carried.contains(family) && carried.size() > 1;
            if (disabledBefore || othersLeft) {
                return new SessionEvent.FamilyUnreadable(family, invalid.reason());
            }
        }
        return new SessionEvent.Refused(invalid.notification(), "sent " + invalid.reason());
    }
}
