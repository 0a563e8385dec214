package io.lbk8s.service;

/** One port of a Service, for MetalLB's IP-sharing rule: two Services sharing an IP may not use the same one. */
public record ServicePort(String protocol, int port) {
    @Override
    public String toString() {
        return port + "/" + protocol;
    }
}
