package io.lbk8s.net;

import java.time.Duration;
import java.util.Objects;

/**
 * @param receiveBufferBytes the socket receive queue; 4 MiB kept 80k requests/s loss-free where the default
 *     208 KiB lost 18% (l2-facts)
 * @param receiveTimeout how long a receive blocks; bounds how long {@link InterfaceResponder#close()} takes
 * @param ipv6 whether to open the NDP socket too
 * @param arpInKernel whether to try answering ARP in the kernel ({@link XdpArpResponder}, needs CAP_BPF and
 *     CAP_NET_ADMIN); without it, or when the kernel refuses, the raw socket answers
 * @param fence until when answers are permitted, in the kernel and from the sockets; unlimited by default
 */
public record ResponderOptions(
        int receiveBufferBytes, Duration receiveTimeout, boolean ipv6, boolean arpInKernel, Fence fence) {

    public static final ResponderOptions DEFAULTS =
            new ResponderOptions(4 << 20, Duration.ofMillis(250), true, true, Fence.unlimited());

    public ResponderOptions {
        if (receiveBufferBytes <= 0 || receiveTimeout.isNegative() || receiveTimeout.isZero()) {
            throw new IllegalArgumentException("receive buffer and timeout must be positive");
        }
        Objects.requireNonNull(fence, "fence (Fence.unlimited() for none)");
    }

    public ResponderOptions withReceiveBufferBytes(int bytes) {
        return new ResponderOptions(bytes, receiveTimeout, ipv6, arpInKernel, fence);
    }

    public ResponderOptions withReceiveTimeout(Duration timeout) {
        return new ResponderOptions(receiveBufferBytes, timeout, ipv6, arpInKernel, fence);
    }

    public ResponderOptions withIpv6(boolean enabled) {
        return new ResponderOptions(receiveBufferBytes, receiveTimeout, enabled, arpInKernel, fence);
    }

    public ResponderOptions withArpInKernel(boolean enabled) {
        return new ResponderOptions(receiveBufferBytes, receiveTimeout, ipv6, enabled, fence);
    }

    public ResponderOptions withFence(Fence fence) {
        return new ResponderOptions(receiveBufferBytes, receiveTimeout, ipv6, arpInKernel, fence);
    }
}
