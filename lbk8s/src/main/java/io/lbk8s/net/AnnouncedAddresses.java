package io.lbk8s.net;

import io.lbk8s.address.IpAddress;

/**
 * Which addresses this node answers for, asked once per request on the receive thread. Implementations must be
 * fast and must not block: the speaker swaps in an immutable snapshot behind a volatile field.
 */
@FunctionalInterface
public interface AnnouncedAddresses {

    boolean announces(int ifindex, IpAddress ip);

    AnnouncedAddresses NOTHING = (ifindex, ip) -> false;
}
