package io.lbk8s.config;

import io.lbk8s.bgp.Community;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A BGP community as MetalLB writes it: standard {@code 65535:65282} (two numbers 0-65535) or large
 * {@code large:1:2:3} (three numbers 0-4294967295). Pure.
 */
final class CommunityValues {
    private CommunityValues() {}

    /** What a text is: a community, or why not. */
    sealed interface Parsed {
        record Valid(Community community) implements Parsed {}

        /** {@code malformed}: written in neither form (so, in a BGPAdvertisement, maybe a misspelled alias). */
        record Invalid(String reason, boolean malformed) implements Parsed {}
    }

    static final String FORMS = "a standard community is written 65535:65282, a large one large:1:2:3";

    private static final Pattern STANDARD = Pattern.compile("(\\d{1,10}):(\\d{1,10})");
    private static final Pattern LARGE = Pattern.compile("large:(\\d{1,20}):(\\d{1,20}):(\\d{1,20})");

    static Parsed parse(String text) {
        Matcher standard = STANDARD.matcher(text);
        if (standard.matches()) {
            long high = Long.parseLong(standard.group(1));
            long low = Long.parseLong(standard.group(2));
            for (long half : new long[] {high, low}) {
                if (half > 0xFFFF) {
                    return new Parsed.Invalid(
                            half + " is out of range: each half of a standard community is 0-65535", false);
                }
            }
            return new Parsed.Valid(new Community.Standard((int) high, (int) low));
        }
        Matcher large = LARGE.matcher(text);
        if (large.matches()) {
            long[] parts = new long[3];
            for (int i = 0; i < 3; i++) {
                String part = large.group(i + 1);
                if (part.length() > 10 || Long.parseLong(part) > 0xFFFF_FFFFL) {
                    return new Parsed.Invalid(
                            part + " is out of range: each part of a large community is 0-4294967295", false);
                }
                parts[i] = Long.parseLong(part);
            }
            return new Parsed.Valid(new Community.Large(parts[0], parts[1], parts[2]));
        }
        return new Parsed.Invalid("not a community: " + FORMS, true);
    }
}
