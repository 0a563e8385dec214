package io.lbk8s.ipam;

import io.lbk8s.address.IpAddress;

/**
 * An open-addressing map from address to value (linear probing, backward-shift deletion). Key and value sit side by
 * side in one array, so a lookup touches one cache line and taking an address allocates nothing here. Null values
 * are not allowed.
 */
final class IpMap<V> {

    private Object[] slots = new Object[128];
    private int capacity = 64;
    /** 64 - log2(capacity). */
    private int shift = 58;
    private int size;

    /** Home slot: Fibonacci hashing (the product's top bits). */
    private int home(IpAddress ip) {
        long h = (ip.low() ^ ip.high() * 0xC2B2_AE3D_27D4_EB4FL ^ ip.family().ordinal()) * 0x9E37_79B9_7F4A_7C15L;
        return (int) (h >>> shift);
    }

    private static boolean same(Object key, IpAddress ip) {
        IpAddress a = (IpAddress) key;
        return a.low() == ip.low() && a.high() == ip.high() && a.family() == ip.family();
    }

    int size() {
        return size;
    }

    @SuppressWarnings("unchecked")
    V get(IpAddress ip) {
        int mask = capacity - 1;
        for (int i = home(ip); slots[2 * i] != null; i = (i + 1) & mask) {
            if (same(slots[2 * i], ip)) {
                return (V) slots[2 * i + 1];
            }
        }
        return null;
    }

    void put(IpAddress ip, V value) {
        if ((size + 1) * 2 > capacity) {
            resize(capacity * 2);
        }
        int mask = capacity - 1;
        int i = home(ip);
        while (slots[2 * i] != null) {
            if (same(slots[2 * i], ip)) {
                slots[2 * i + 1] = value;
                return;
            }
            i = (i + 1) & mask;
        }
        slots[2 * i] = ip;
        slots[2 * i + 1] = value;
        size++;
    }

    void remove(IpAddress ip) {
        int mask = capacity - 1;
        int i = home(ip);
        while (true) {
            if (slots[2 * i] == null) {
                return;
            }
            if (same(slots[2 * i], ip)) {
                break;
            }
            i = (i + 1) & mask;
        }
        slots[2 * i] = null;
        slots[2 * i + 1] = null;
        size--;
        // shift later entries of the probe run back into the hole, unless their home lies after the hole
        for (int j = (i + 1) & mask; slots[2 * j] != null; j = (j + 1) & mask) {
            int home = home((IpAddress) slots[2 * j]);
            boolean homeInHoleToJ = i <= j ? (i < home && home <= j) : (i < home || home <= j);
            if (!homeInHoleToJ) {
                slots[2 * i] = slots[2 * j];
                slots[2 * i + 1] = slots[2 * j + 1];
                slots[2 * j] = null;
                slots[2 * j + 1] = null;
                i = j;
            }
        }
    }

    void clear() {
        slots = new Object[128];
        capacity = 64;
        shift = 58;
        size = 0;
    }

    private void resize(int newCapacity) {
        Object[] old = slots;
        int oldCapacity = capacity;
        slots = new Object[2 * newCapacity];
        capacity = newCapacity;
        shift = 64 - Integer.numberOfTrailingZeros(newCapacity);
        int mask = newCapacity - 1;
        for (int k = 0; k < oldCapacity; k++) {
            if (old[2 * k] != null) {
                int i = home((IpAddress) old[2 * k]);
                while (slots[2 * i] != null) {
                    i = (i + 1) & mask;
                }
                slots[2 * i] = old[2 * k];
                slots[2 * i + 1] = old[2 * k + 1];
            }
        }
    }
}
