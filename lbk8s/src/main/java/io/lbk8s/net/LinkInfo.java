package io.lbk8s.net;

import java.util.List;
import java.util.Optional;

/**
 * A network interface as the responder needs it: name, index, MAC, state and addresses.
 *
 * @param master the bridge or bond this interface is a member of, if any
 */
public record LinkInfo(String name, int index, MacAddress mac, boolean up, boolean loopback, Optional<String> master,
                       List<LinkAddress> addresses) {

    public LinkInfo {
        addresses = List.copyOf(addresses);
    }
}
