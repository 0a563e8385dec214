package io.lbk8s.bgp;

/**
 * A BGP community attached to advertised routes: a standard community (RFC 1997, written {@code 65000:100}) or a
 * large community (RFC 8092, written {@code large:64512:1:2} as MetalLB writes it).
 */
public sealed interface Community {

    /** A standard community: two 16-bit halves, usually an AS number and a value. */
    record Standard(int high, int low) implements Community {
        public Standard {
            if (high < 0 || high > 0xFFFF || low < 0 || low > 0xFFFF) {
                throw new IllegalArgumentException(
                        "a standard community's halves are 0-65535, got " + high + ":" + low);
            }
        }

        public long value() {
            return ((long) high << 16) | low;
        }

        @Override
        public String toString() {
            return high + ":" + low;
        }
    }

    /** A large community: three unsigned 32-bit numbers. */
    record Large(long global, long local1, long local2) implements Community {
        public Large {
            for (long part : new long[] {global, local1, local2}) {
                if (part < 0 || part > 0xFFFF_FFFFL) {
                    throw new IllegalArgumentException("a large community's parts are 0-4294967295, got " + part);
                }
            }
        }

        @Override
        public String toString() {
            return "large:" + global + ":" + local1 + ":" + local2;
        }
    }
}
