package io.lbk8s.net;

/**
 * The counters of one announced address on one interface, handed to the responder when the address is announced so
 * that the receive loop only increments (no map lookup or key per packet). Called on the receive threads: must be
 * quick.
 */
@FunctionalInterface
public interface AddressCounters {

    /** A request for the address arrived and its answer went out (MetalLB counts both; they move together). */
    void answered();

    AddressCounters NONE = () -> {};
}
