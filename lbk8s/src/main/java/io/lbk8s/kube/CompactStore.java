package io.lbk8s.kube;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * An informer's cache that keeps, of each object, a small record of only the fields lbk8s reads ({@code K}), by
 * namespace/name, and rebuilds an object of those fields alone when asked: a whole fabric8 object (managed fields, a
 * map of unknown properties in every nested object, fields nobody here reads) is several times that. What it returns
 * must never be written back whole.
 */
abstract class CompactStore<T extends HasMetadata, K> implements ItemStore<T> {
    private final ConcurrentHashMap<String, K> kept = new ConcurrentHashMap<>();

    /** What of {@code object} is kept. */
    abstract K keep(T object);

    /** The object rebuilt from what was kept of it under {@code key} (namespace/name). */
    abstract T restore(String key, K kept);

    @Override
    public final String getKey(T object) {
        return Cache.metaNamespaceKeyFunc(object);
    }

    @Override
    public final T put(String key, T object) {
        return restored(key, kept.put(key, keep(object)));
    }

    @Override
    public final T remove(String key) {
        return restored(key, kept.remove(key));
    }

    @Override
    public final Stream<String> keySet() {
        return kept.keySet().stream();
    }

    @Override
    public final Stream<T> values() {
        return kept.entrySet().stream().map(e -> restore(e.getKey(), e.getValue()));
    }

    @Override
    public final int size() {
        return kept.size();
    }

    @Override
    public final T get(String key) {
        return restored(key, kept.get(key));
    }

    /** Not every field is kept: fabric8 then hands its handlers the listed objects themselves. */
    @Override
    public final boolean isFullState() {
        return false;
    }

    private T restored(String key, K k) {
        return k == null ? null : restore(key, k);
    }

    /** The metadata every rebuilt object has: its namespace and name (from its key), uid and resourceVersion. */
    static ObjectMeta meta(String key, String uid, String resourceVersion) {
        int slash = key.indexOf('/');
        ObjectMeta meta = new ObjectMeta();
        meta.setNamespace(slash < 0 ? null : key.substring(0, slash));
        meta.setName(key.substring(slash + 1));
        meta.setUid(uid);
        meta.setResourceVersion(resourceVersion);
        return meta;
    }

    /** Recurring words (types, protocols, keys, node names) are interned: thousands of objects share a few of them. */
    static String intern(String word) {
        return word == null ? null : word.intern();
    }
}
