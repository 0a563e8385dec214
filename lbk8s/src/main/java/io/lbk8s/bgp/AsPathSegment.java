package io.lbk8s.bgp;

import java.util.List;

/** One segment of an AS_PATH (RFC 4271 4.3): an ordered AS_SEQUENCE or an unordered AS_SET. */
public record AsPathSegment(Type type, List<Long> asns) {
    public AsPathSegment {
        asns = List.copyOf(asns);
    }

    public enum Type {
        AS_SET(1),
        AS_SEQUENCE(2);

        private final int code;

        Type(int code) {
            this.code = code;
        }

        public int code() {
            return code;
        }
    }

    public static AsPathSegment sequence(Long... asns) {
        return new AsPathSegment(Type.AS_SEQUENCE, List.of(asns));
    }
}
