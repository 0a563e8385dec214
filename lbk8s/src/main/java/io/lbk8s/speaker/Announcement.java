package io.lbk8s.speaker;

import io.lbk8s.address.IpAddress;
import io.lbk8s.config.AddressPool;
import io.lbk8s.config.L2Advertisement;
import java.util.List;

/** The cluster-wide decision for one address of a Service: which node announces it, or why none does. */
public sealed interface Announcement {

    IpAddress ip();

    /**
     * {@code node} announces {@code ip}; {@code advertisements} are the L2Advertisements that select the pool and
     * allow that node (their {@code interfaces} restrict where it answers).
     */
    record Led(IpAddress ip, String node, AddressPool pool, List<L2Advertisement> advertisements)
            implements Announcement {
        public Led {
            advertisements = List.copyOf(advertisements);
        }
    }

    /**
     * No L2Advertisement selects the pool of {@code ip} but a BGPAdvertisement does: it is not announced in layer 2,
     * and whether it is advertised, and where, is BGP's to say ({@link BgpPlan}).
     */
    record BgpOnly(IpAddress ip) implements Announcement {}

    /** Nobody announces {@code ip}; {@code reason} is a sentence for the Service's Warning event. */
    record Unannounced(IpAddress ip, String reason) implements Announcement {}
}
