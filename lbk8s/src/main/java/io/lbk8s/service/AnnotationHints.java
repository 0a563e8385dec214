package io.lbk8s.service;

import io.lbk8s.service.ServiceRequests.Warning;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Names the annotations under lbk8s's and MetalLB's prefixes that nothing reads, with the known name the user
 * probably meant. A misspelled {@code metallb.universe.tf/allow-shared} would otherwise be ignored without a word,
 * and the Service get an address of its own instead of a shared one. Pure.
 */
final class AnnotationHints {
    /** Up to this many edits, a known name is taken as what was meant (covers a dropped "-ip" or "s"). */
    static final int MAX_EDITS = 3;
    /** A name this short after its prefix is a prefix of too many names to point at one. */
    private static final int MIN_PREFIX_LENGTH = 3;

    private AnnotationHints() {}

    /** One warning per unknown annotation under a checked prefix, in name order. */
    static List<Warning> unknown(Map<String, String> annotations) {
        return annotations.keySet().stream()
                .filter(name -> Annotations.CHECKED_PREFIXES.stream().anyMatch(name::startsWith))
                .filter(name -> !Annotations.KNOWN.contains(name))
                .sorted()
                .map(name -> new Warning(Warning.Reason.UnknownAnnotation, message(name)))
                .toList();
    }

    private static String message(String name) {
        String hint = closest(name)
                .map(known -> Annotations.deprecated(known)
                        ? "; did you mean " + known + " (now " + Annotations.replacementOf(known) + ")?"
                        : "; did you mean " + known + "?")
                .orElse("");
        return "annotation " + name + " is not one lbk8s knows and is ignored" + hint;
    }

    /** The known name nearest to {@code name}, when near enough; on a tie, the first in {@link Annotations#REQUESTS}. */
    static Optional<String> closest(String name) {
        return Annotations.REQUESTS.stream()
                .filter(known -> distance(name, known) <= MAX_EDITS || prefixes(name, known))
                .min(Comparator.comparingInt(known -> distance(name, known)));
    }

    /** A name cut short ({@code metallb.io/allow}) or with something added ({@code metallb.io/address-pool-name}). */
    private static boolean prefixes(String name, String known) {
        boolean cutShort = known.startsWith(name) && name.length() - name.indexOf('/') - 1 >= MIN_PREFIX_LENGTH;
        return cutShort || name.startsWith(known);
    }

    /** Levenshtein distance: insertions, deletions and substitutions of one character each. */
    static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
