package io.lbk8s.ipam;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpFamily;
import io.lbk8s.service.AllocationRequest;
import java.util.List;

/**
 * The address families a request wants, primary first, and whether both are required. SingleStack: one address of
 * {@code families[0]} (no families: either, IPv4 first). RequireDualStack: one of each. PreferDualStack with two
 * families (or none): both if possible; with one family listed (a single-stack cluster) one of that family, as in
 * MetalLB.
 */
record Shape(List<IpFamily> families, boolean dual, boolean required) {

    private static final List<IpFamily> V4_V6 = List.of(IpFamily.IPv4, IpFamily.IPv6);
    private static final List<IpFamily> V6_V4 = List.of(IpFamily.IPv6, IpFamily.IPv4);
    /** SingleStack without families: one address, IPv4 if the pool has a free one, else IPv6. */
    static final Shape ANY_SINGLE = new Shape(V4_V6, false, false);

    private static final Shape V4_SINGLE = new Shape(List.of(IpFamily.IPv4), false, false);
    private static final Shape V6_SINGLE = new Shape(List.of(IpFamily.IPv6), false, false);

    static Shape of(AllocationRequest request) {
        List<IpFamily> families = request.families();
        IpFamily first = families.isEmpty() ? IpFamily.IPv4 : families.getFirst();
        List<IpFamily> both = first == IpFamily.IPv4 ? V4_V6 : V6_V4;
        return switch (request.familyPolicy()) {
            case SingleStack -> families.isEmpty() ? ANY_SINGLE : first == IpFamily.IPv4 ? V4_SINGLE : V6_SINGLE;
            case PreferDualStack ->
                families.size() == 1 ? (first == IpFamily.IPv4 ? V4_SINGLE : V6_SINGLE) : new Shape(both, true, false);
            case RequireDualStack -> new Shape(both, true, true);
        };
    }

    /** Whether addresses a Service holds meet its request's family policy. */
    static boolean met(AllocationRequest request, List<IpAddress> ips) {
        if (!request.requestedIps().isEmpty()) {
            return true; // exactly the requested addresses, already validated
        }
        Shape shape = of(request);
        if (shape.required()) {
            return ips.size() == 2;
        }
        if (shape.dual()) {
            return ips.size() == 1 || ips.size() == 2;
        }
        return ips.size() == 1 && shape.families().contains(ips.getFirst().family());
    }

    /** Two addresses IPv4 first, as every assignment holds them. */
    static List<IpAddress> v4First(List<IpAddress> ips) {
        if (ips.size() == 2 && !ips.get(0).isV4() && ips.get(1).isV4()) {
            return List.of(ips.get(1), ips.get(0));
        }
        return List.copyOf(ips);
    }
}
