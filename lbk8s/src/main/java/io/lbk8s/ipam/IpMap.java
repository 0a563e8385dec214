package io.lbk8s.ipam;

import io.lbk8s.address.IpAddress;

/**
 * An open-addressing map from address to value (linear probing, backward-shift deletion): no node per entry, so
 * taking and releasing an address allocates nothing here. Null values are not allowed.
 */
final class IpMap<V> {

    private IpAddress[] keys = new IpAddress[64];
    private Object[] values = new Object[64];
    private int size;

    private static int hash(IpAddress ip) {
        long h = ip.low() * 0x9E37_79B9_7F4A_7C15L ^ ip.high() * 0xC2B2_AE3D_27D4_EB4FL ^ ip.family().ordinal();
        return (int) (h ^ (h >>> 29));
    }

    private static boolean same(IpAddress a, IpAddress b) {
        return a.low() == b.low() && a.high() == b.high() && a.family() == b.family();
    }

    int size() {
        return size;
    }

    @SuppressWarnings("unchecked")
    V get(IpAddress ip) {
        int mask = keys.length - 1;
        for (int i = hash(ip) & mask; keys[i] != null; i = (i + 1) & mask) {
            if (same(keys[i], ip)) {
                return (V) values[i];
            }
        }
        return null;
    }

    void put(IpAddress ip, V value) {
        if ((size + 1) * 2 > keys.length) {
            resize(keys.length * 2);
        }
        int mask = keys.length - 1;
        int i = hash(ip) & mask;
        while (keys[i] != null) {
            if (same(keys[i], ip)) {
                values[i] = value;
                return;
            }
            i = (i + 1) & mask;
        }
        keys[i] = ip;
        values[i] = value;
        size++;
    }

    void remove(IpAddress ip) {
        int mask = keys.length - 1;
        int i = hash(ip) & mask;
        while (true) {
            if (keys[i] == null) {
                return;
            }
            if (same(keys[i], ip)) {
                break;
            }
            i = (i + 1) & mask;
        }
        keys[i] = null;
        values[i] = null;
        size--;
        // shift later entries of the probe run back into the hole, unless their home lies after the hole
        for (int j = (i + 1) & mask; keys[j] != null; j = (j + 1) & mask) {
            int home = hash(keys[j]) & mask;
            boolean homeInHoleToJ = i <= j ? (i < home && home <= j) : (i < home || home <= j);
            if (!homeInHoleToJ) {
                keys[i] = keys[j];
                values[i] = values[j];
                keys[j] = null;
                values[j] = null;
                i = j;
            }
        }
    }

    void clear() {
        keys = new IpAddress[64];
        values = new Object[64];
        size = 0;
    }

    private void resize(int capacity) {
        IpAddress[] oldKeys = keys;
        Object[] oldValues = values;
        keys = new IpAddress[capacity];
        values = new Object[capacity];
        int mask = capacity - 1;
        for (int k = 0; k < oldKeys.length; k++) {
            if (oldKeys[k] != null) {
                int i = hash(oldKeys[k]) & mask;
                while (keys[i] != null) {
                    i = (i + 1) & mask;
                }
                keys[i] = oldKeys[k];
                values[i] = oldValues[k];
            }
        }
    }
}
