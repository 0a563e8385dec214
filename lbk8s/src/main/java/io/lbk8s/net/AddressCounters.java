package io.lbk8s.net;

/**
 * The counters of one announced address on one interface, handed to the responder when the address is announced so
 * that the receive loop only increments (no map lookup or key per packet). Called on the receive threads, and for
 * answers the kernel gave (the XDP path) from whichever thread collects them: must be quick and thread-safe.
 */
@FunctionalInterface
public interface AddressCounters {

    /** {@code count} requests for the address arrived and their answers went out (MetalLB counts both; they move together). */
    void answered(long count);

    AddressCounters NONE = count -> {};
}
