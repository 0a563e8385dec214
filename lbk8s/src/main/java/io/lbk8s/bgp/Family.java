package io.lbk8s.bgp;

import io.lbk8s.address.IpFamily;
import java.util.Arrays;
import java.util.Optional;

/** The address families this speaker announces (RFC 4760's AFI and SAFI pairs): unicast IPv4 and IPv6. */
public enum Family {
    IPV4_UNICAST(1, 1, IpFamily.IPv4),
    IPV6_UNICAST(2, 1, IpFamily.IPv6);

    private final int afi;
    private final int safi;
    private final IpFamily ipFamily;

    Family(int afi, int safi, IpFamily ipFamily) {
        this.afi = afi;
        this.safi = safi;
        this.ipFamily = ipFamily;
    }

    public int afi() {
        return afi;
    }

    public int safi() {
        return safi;
    }

    public IpFamily ipFamily() {
        return ipFamily;
    }

    /** "IPv4 unicast", "IPv6 unicast": as routers' configurations and logs name them. */
    public String describe() {
        return ipFamily + " unicast";
    }

    public static Optional<Family> of(int afi, int safi) {
        return Arrays.stream(values())
                .filter(f -> f.afi == afi && f.safi == safi)
                .findFirst();
    }

    public static Family of(IpFamily ipFamily) {
        return ipFamily == IpFamily.IPv4 ? IPV4_UNICAST : IPV6_UNICAST;
    }
}
