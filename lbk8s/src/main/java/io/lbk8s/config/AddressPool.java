package io.lbk8s.config;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpFamily;
import io.lbk8s.address.IpRange;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A validated pool of addresses, from a MetalLB IPAddressPool or from the lbk8s ConfigMap.
 * {@code labels} are the IPAddressPool's metadata labels (for L2Advertisement ipAddressPoolSelectors).
 */
public record AddressPool(
        String name,
        List<IpRange> ranges,
        boolean autoAssign,
        boolean avoidBuggyIPs,
        Optional<ServiceAllocation> serviceAllocation,
        Map<String, String> labels,
        ConfigOrigin origin) {

    public AddressPool {
        ranges = List.copyOf(ranges);
        labels = Map.copyOf(labels);
    }

    public boolean contains(IpAddress ip) {
        for (IpRange range : ranges) {
            if (range.contains(ip)) {
                return true;
            }
        }
        return false;
    }

    public boolean hasFamily(IpFamily family) {
        return ranges.stream().anyMatch(r -> r.family() == family);
    }

    /** Whether MetalLB's avoidBuggyIPs rule forbids this address in this pool (IPv4 .0 and .255). */
    public boolean forbids(IpAddress ip) {
        return avoidBuggyIPs && ip.isV4() && (ip.lastByte() == 0 || ip.lastByte() == 255);
    }
}
