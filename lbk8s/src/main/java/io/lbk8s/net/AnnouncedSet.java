package io.lbk8s.net;

import io.lbk8s.address.IpAddress;
import io.lbk8s.net.bpf.BpfProgram;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.function.Function;

/**
 * The addresses one interface answers for, in the form the receive loop reads per request: sorted primitive keys
 * searched without hashing, boxing or allocation, each with its counters. Immutable; a responder swaps a new one in
 * with one volatile write.
 */
final class AnnouncedSet {

    static final AnnouncedSet EMPTY = of(List.of(), ip -> AddressCounters.NONE);

    private final int[] v4; // sorted (signed order, as binarySearch compares)
    private final AddressCounters[] v4Counters;
    private final long[] v6High; // sorted by (high, low), signed
    private final long[] v6Low;
    private final AddressCounters[] v6Counters;
    private final List<IpAddress> addresses;

    private AnnouncedSet(
            int[] v4,
            AddressCounters[] v4Counters,
            long[] v6High,
            long[] v6Low,
            AddressCounters[] v6Counters,
            List<IpAddress> addresses) {
        this.v4 = v4;
        this.v4Counters = v4Counters;
        this.v6High = v6High;
        this.v6Low = v6Low;
        this.v6Counters = v6Counters;
        this.addresses = addresses;
    }

    static AnnouncedSet of(Collection<IpAddress> ips, Function<IpAddress, AddressCounters> counters) {
        List<IpAddress> v4s = ips.stream()
                .filter(IpAddress::isV4)
                .distinct()
                .sorted(Comparator.comparingInt(ip -> (int) ip.low()))
                .toList();
        List<IpAddress> v6s = ips.stream()
                .filter(ip -> !ip.isV4())
                .distinct()
                .sorted(Comparator.comparingLong(IpAddress::high).thenComparingLong(IpAddress::low))
                .toList();
        int[] v4 = new int[v4s.size()];
        AddressCounters[] v4Counters = new AddressCounters[v4s.size()];
        for (int i = 0; i < v4.length; i++) {
            v4[i] = (int) v4s.get(i).low();
            v4Counters[i] = counters.apply(v4s.get(i));
        }
        long[] high = new long[v6s.size()];
        long[] low = new long[v6s.size()];
        AddressCounters[] v6Counters = new AddressCounters[v6s.size()];
        for (int i = 0; i < high.length; i++) {
            high[i] = v6s.get(i).high();
            low[i] = v6s.get(i).low();
            v6Counters[i] = counters.apply(v6s.get(i));
        }
        List<IpAddress> all = new ArrayList<>(v4s);
        all.addAll(v6s);
        return new AnnouncedSet(v4, v4Counters, high, low, v6Counters, List.copyOf(all));
    }

    /** The counters of an announced IPv4 address (network-order bits as an int), or null when it is not announced. */
    AddressCounters v4(int address) {
        int i = Arrays.binarySearch(v4, address);
        return i >= 0 ? v4Counters[i] : null;
    }

    /** The counters of an announced IPv6 address, or null when it is not announced. */
    AddressCounters v6(long high, long low) {
        int from = 0;
        int to = v6High.length - 1;
        while (from <= to) {
            int mid = (from + to) >>> 1;
            int order = v6High[mid] != high ? Long.compare(v6High[mid], high) : Long.compare(v6Low[mid], low);
            if (order == 0) {
                return v6Counters[mid];
            }
            if (order < 0) {
                from = mid + 1;
            } else {
                to = mid - 1;
            }
        }
        return null;
    }

    /** The IPv4 addresses as network-order bits, sorted; the caller must not change the array. */
    int[] v4Addresses() {
        return v4;
    }

    boolean contains(IpAddress ip) {
        return ip.isV4() ? v4((int) ip.low()) != null : v6(ip.high(), ip.low()) != null;
    }

    /** The kernel filter for this set's ARP requests. */
    BpfProgram arpFilter() {
        return BpfProgram.arpRequestsFor(v4);
    }

    /** The kernel filter for this set's neighbor solicitations (by the targets' last 32 bits). */
    BpfProgram ndpFilter() {
        int[] lowWords = new int[v6Low.length];
        for (int i = 0; i < lowWords.length; i++) {
            lowWords[i] = (int) v6Low[i];
        }
        return BpfProgram.neighborSolicitationsFor(lowWords);
    }

    List<IpAddress> addresses() {
        return addresses;
    }

    @Override
    public String toString() {
        return "AnnouncedSet" + addresses;
    }
}
