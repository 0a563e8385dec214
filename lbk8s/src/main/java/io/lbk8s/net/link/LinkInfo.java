package io.lbk8s.net.link;

import io.lbk8s.net.frame.MacAddress;
import java.util.List;
import java.util.Optional;

/**
 * A network interface as the responder needs it: name, index, MAC, state and addresses.
 *
 * @param up       administratively up (IFF_UP, {@code ip link set up})
 * @param running  the kernel says it can move frames (IFF_RUNNING): up with a carrier; a pulled cable or a veth
 *                 whose peer went down clears it while {@code up} stays
 * @param master   the bridge or bond this interface is a member of, if any
 */
public record LinkInfo(
        String name,
        int index,
        MacAddress mac,
        boolean up,
        boolean running,
        boolean loopback,
        Optional<String> master,
        List<LinkAddress> addresses) {

    public LinkInfo {
        addresses = List.copyOf(addresses);
    }

    /** A link described without its carrier (made by hand, in tests): running when it is up. */
    public LinkInfo(
            String name,
            int index,
            MacAddress mac,
            boolean up,
            boolean loopback,
            Optional<String> master,
            List<LinkAddress> addresses) {
        this(name, index, mac, up, up, loopback, master, addresses);
    }

    /** Up and running: frames can be sent and received. */
    public boolean operational() {
        return up && running;
    }
}
