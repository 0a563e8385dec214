package io.lbk8s.ipam;

import io.lbk8s.address.IpAddress;
import io.lbk8s.config.Config;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * IP address management for LoadBalancer Services: pure, in-memory, single-threaded (the controller calls it from
 * its one reconcile thread). See the class body for the rules; TO BE IMPLEMENTED.
 */
public final class Allocator {

    public Allocator(Config config) {
        throw new UnsupportedOperationException("not yet");
    }

    /** Replaces the configuration; assignments that no longer fit are released and their Services returned. */
    public Set<ServiceKey> reconfigure(Config config) {
        throw new UnsupportedOperationException("not yet");
    }

    /** Claims addresses a Service already has in its status (after a restart), if they still fit; never allocates new ones. */
    public Optional<Assignment> restore(AllocationRequest request, List<IpAddress> current) {
        throw new UnsupportedOperationException("not yet");
    }

    /** Keeps the Service's assignment if it still fits the request, otherwise allocates anew. */
    public Outcome assign(AllocationRequest request) {
        throw new UnsupportedOperationException("not yet");
    }

    public void release(ServiceKey service) {
        throw new UnsupportedOperationException("not yet");
    }

    public Optional<Assignment> assignmentOf(ServiceKey service) {
        throw new UnsupportedOperationException("not yet");
    }

    public List<PoolUsage> usage() {
        throw new UnsupportedOperationException("not yet");
    }
}
