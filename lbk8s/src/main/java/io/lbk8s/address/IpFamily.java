package io.lbk8s.address;

/** The two IP families, named as Kubernetes names them in {@code spec.ipFamilies}. */
public enum IpFamily {
    IPv4(32),
    IPv6(128);

    private final int bits;

    IpFamily(int bits) {
        this.bits = bits;
    }

    public int bits() {
        return bits;
    }
}
