package io.lbk8s.ipam;

import io.lbk8s.service.AllocationRequest;
import io.lbk8s.service.ServiceKey;
import java.util.ArrayList;
import java.util.List;

/**
 * Service → (request, assignment), open-addressing (linear probing, backward-shift deletion). Key and values sit
 * side by side in one array (slot i at 3i, 3i+1, 3i+2), so a lookup touches one cache line and holding an
 * assignment costs no node and no pair object.
 */
final class HeldMap {

    private static final int STRIDE = 3;

    private Object[] slots = new Object[64 * STRIDE];
    private int capacity = 64;
    /** 64 - log2(capacity). */
    private int shift = 58;
    private int size;

    /** Home slot: Fibonacci hashing (the product's top bits), so that similar names do not crowd together. */
    private int home(ServiceKey key) {
        long h = key.namespace().hashCode() * 0x9E37_79B9_7F4A_7C15L + key.name().hashCode();
        return (int) ((h * 0x9E37_79B9_7F4A_7C15L) >>> shift);
    }

    int size() {
        return size;
    }

    private int find(ServiceKey key) {
        int mask = capacity - 1;
        for (int i = home(key); slots[i * STRIDE] != null; i = (i + 1) & mask) {
            if (slots[i * STRIDE].equals(key)) {
                return i;
            }
        }
        return -1;
    }

    Assignment assignment(ServiceKey key) {
        int i = find(key);
        return i < 0 ? null : (Assignment) slots[i * STRIDE + 2];
    }

    AllocationRequest request(ServiceKey key) {
        int i = find(key);
        return i < 0 ? null : (AllocationRequest) slots[i * STRIDE + 1];
    }

    void put(ServiceKey key, AllocationRequest request, Assignment assignment) {
        if ((size + 1) * 2 > capacity) {
            resize(capacity * 2);
        }
        int mask = capacity - 1;
        int i = home(key);
        while (slots[i * STRIDE] != null && !slots[i * STRIDE].equals(key)) {
            i = (i + 1) & mask;
        }
        if (slots[i * STRIDE] == null) {
            size++;
        }
        set(i, key, request, assignment);
    }

    /** Removes the entry; returns its request, or null if there was none. */
    AllocationRequest remove(ServiceKey key) {
        int i = find(key);
        if (i < 0) {
            return null;
        }
        AllocationRequest removed = (AllocationRequest) slots[i * STRIDE + 1];
        set(i, null, null, null);
        size--;
        int mask = capacity - 1;
        for (int j = (i + 1) & mask; slots[j * STRIDE] != null; j = (j + 1) & mask) {
            int home = home((ServiceKey) slots[j * STRIDE]);
            boolean homeInHoleToJ = i <= j ? (i < home && home <= j) : (i < home || home <= j);
            if (!homeInHoleToJ) {
                System.arraycopy(slots, j * STRIDE, slots, i * STRIDE, STRIDE);
                set(j, null, null, null);
                i = j;
            }
        }
        return removed;
    }

    private void set(int i, Object key, Object request, Object assignment) {
        slots[i * STRIDE] = key;
        slots[i * STRIDE + 1] = request;
        slots[i * STRIDE + 2] = assignment;
    }

    void clear() {
        slots = new Object[64 * STRIDE];
        capacity = 64;
        shift = 58;
        size = 0;
    }

    List<AllocationRequest> requests() {
        List<AllocationRequest> all = new ArrayList<>(size);
        for (int i = 0; i < capacity; i++) {
            if (slots[i * STRIDE] != null) {
                all.add((AllocationRequest) slots[i * STRIDE + 1]);
            }
        }
        return all;
    }

    List<Assignment> assignments() {
        List<Assignment> all = new ArrayList<>(size);
        for (int i = 0; i < capacity; i++) {
            if (slots[i * STRIDE] != null) {
                all.add((Assignment) slots[i * STRIDE + 2]);
            }
        }
        return all;
    }

    private void resize(int newCapacity) {
        Object[] old = slots;
        int oldCapacity = capacity;
        slots = new Object[newCapacity * STRIDE];
        capacity = newCapacity;
        shift = 64 - Integer.numberOfTrailingZeros(newCapacity);
        int mask = newCapacity - 1;
        for (int k = 0; k < oldCapacity; k++) {
            Object key = old[k * STRIDE];
            if (key != null) {
                int i = home((ServiceKey) key);
                while (slots[i * STRIDE] != null) {
                    i = (i + 1) & mask;
                }
                System.arraycopy(old, k * STRIDE, slots, i * STRIDE, STRIDE);
            }
        }
    }
}
