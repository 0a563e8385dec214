package io.lbk8s.config;

import io.lbk8s.address.IpAddress;
import io.lbk8s.config.PoolDraft.RangeEntry;
import io.lbk8s.text.Quoted;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What concerns several pools, taken in definition order so that the first defined wins and the error lands on the
 * other: a name defined twice, a range that overlaps a range of another pool.
 */
final class PoolConflicts {
    private PoolConflicts() {}

    /**
     * The pools with a name, each name once: a later definition of a name is an error on that definition and is left
     * out. {@code drafts} are in definition order; the result keeps it, {@code byName} gets the first of each name.
     */
    static List<PoolDraft> firstOfEachName(List<PoolDraft> drafts, Map<String, PoolDraft> byName) {
        List<PoolDraft> named = new ArrayList<>();
        for (PoolDraft draft : drafts) {
            if (draft.name == null) {
                continue;
            }
            PoolDraft first = byName.putIfAbsent(draft.name, draft);
            if (first != null) {
                draft.scope.error("pool name " + Quoted.of(draft.name) + " is already defined by " + first.definedAt);
            } else {
                named.add(draft);
            }
        }
        return named;
    }

    /**
     * Takes pools in definition order and keeps the ranges of each pool that passes in a map by first address; a
     * range overlaps a kept one iff the kept range starting at or below it reaches it, or the next kept range starts
     * within it (kept ranges never overlap). A pool that already failed is checked last, for the report only.
     */
    static void checkOverlapsBetweenPools(List<PoolDraft> pools) {
        NavigableMap<IpAddress, RangeEntry> kept = new TreeMap<>();
        List<PoolDraft> passing = pools.stream().filter(p -> !p.scope.failed).toList();
        List<PoolDraft> failedAlready =
                pools.stream().filter(p -> p.scope.failed).toList();
        for (PoolDraft pool : passing) {
            reportOverlaps(pool, kept);
            if (!pool.scope.failed) {
                pool.ranges.forEach(entry -> kept.put(entry.range().first(), entry));
            }
        }
        failedAlready.forEach(pool -> reportOverlaps(pool, kept));
    }

    private static void reportOverlaps(PoolDraft pool, NavigableMap<IpAddress, RangeEntry> kept) {
        for (RangeEntry entry : pool.ranges) {
            Map.Entry<IpAddress, RangeEntry> below =
                    kept.floorEntry(entry.range().first());
            Map.Entry<IpAddress, RangeEntry> above =
                    kept.ceilingEntry(entry.range().first());
            Optional.ofNullable(below)
                    .map(Map.Entry::getValue)
                    .filter(k -> k.range().overlaps(entry.range()))
                    .or(() -> Optional.ofNullable(above)
                            .map(Map.Entry::getValue)
                            .filter(k -> k.range().overlaps(entry.range())))
                    .ifPresent(other -> pool.scope.error(
                            entry.path() + " " + Quoted.of(entry.range().text()) + " overlaps "
                                    + other.path() + " "
                                    + Quoted.of(other.range().text()) + " of pool " + Quoted.of(other.pool().name)
                                    + " (" + other.pool().definedAt + ")"));
        }
    }
}
