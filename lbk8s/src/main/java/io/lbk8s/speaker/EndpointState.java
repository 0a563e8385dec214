package io.lbk8s.speaker;

import java.util.Optional;

/**
 * One endpoint of a Service as its EndpointSlice lists it, reduced to what announcing needs: the node it runs on and
 * its conditions, each empty when the slice does not say (Kubernetes then means ready, serving, not terminating).
 */
public record EndpointState(
        Optional<String> node, Optional<Boolean> ready, Optional<Boolean> serving, Optional<Boolean> terminating) {

    /**
     * Whether it can take traffic, as MetalLB judges it: by {@code serving} where the slice says it (so a terminating
     * Pod that still serves keeps its address announced until it stops), else by {@code ready}. With
     * {@code publishNotReadyAddresses} the Service asks for its Pods to be used ready or not, and {@code ready} says so.
     */
    public boolean canServe(boolean publishNotReadyAddresses) {
        if (serving.isEmpty() || publishNotReadyAddresses) {
            return ready.orElse(true);
        }
        return serving.get();
    }
}
