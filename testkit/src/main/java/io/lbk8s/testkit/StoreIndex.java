package io.lbk8s.testkit;

import io.fabric8.mockwebserver.crud.Attribute;
import io.fabric8.mockwebserver.crud.AttributeSet;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The stored objects' keys by kind, namespace and name. fabric8's dispatcher finds one object by scanning every
 * stored one, so a write costs as much as the whole store; a kube-apiserver's etcd finds it by key. With this index a
 * write to one of 10,000 Services costs what it costs with ten.
 */
final class StoreIndex {

    private final Map<String, AttributeSet> byIdentity = new ConcurrentHashMap<>();
    /** Stored keys with no kind or name, which only a scan can find (none in practice); while any exist, misses scan. */
    private final AtomicInteger unindexed = new AtomicInteger();

    /** What the lookup of {@code key} means: the stored key if indexed, none if surely absent, or ask the scan. */
    sealed interface Lookup {
        record Found(AttributeSet stored) implements Lookup {}

        record Absent() implements Lookup {}

        record Unknown() implements Lookup {}
    }

    Lookup find(AttributeSet key) {
        Optional<String> identity = identity(key);
        if (identity.isEmpty()) {
            return new Lookup.Unknown();
        }
        AttributeSet stored = byIdentity.get(identity.get());
        if (stored != null) {
            return stored.matches(key) ? new Lookup.Found(stored) : new Lookup.Unknown();
        }
        return unindexed.get() == 0 ? new Lookup.Absent() : new Lookup.Unknown();
    }

    void stored(AttributeSet key) {
        identity(key).ifPresentOrElse(id -> byIdentity.put(id, key), unindexed::incrementAndGet);
    }

    void removed(AttributeSet key) {
        identity(key).ifPresentOrElse(id -> byIdentity.remove(id, key), unindexed::decrementAndGet);
    }

    void clear() {
        byIdentity.clear();
        unindexed.set(0);
    }

    /** kind (plural), namespace and name: what names one object on a kube-apiserver. */
    static Optional<String> identity(AttributeSet key) {
        String plural = single(key.getAttribute("plural"));
        String name = single(key.getAttribute("name"));
        if (plural == null || name == null) {
            return Optional.empty();
        }
        String namespace = single(key.getAttribute("namespace"));
        return Optional.of(plural + "/" + (namespace == null ? "" : namespace) + "/" + name);
    }

    private static String single(Attribute attribute) {
        if (attribute == null || attribute.getValues().size() != 1) {
            return null;
        }
        return attribute.getValues().getFirst().toString();
    }
}
