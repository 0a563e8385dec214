package io.lbk8s.ipam;

import java.util.ArrayList;
import java.util.List;

/**
 * Service → (request, assignment), open-addressing (linear probing, backward-shift deletion) with the two values in
 * parallel arrays: holding an assignment costs no node and no pair object, which keeps the garbage collector's work
 * per allocation small.
 */
final class HeldMap {

    private ServiceKey[] keys = new ServiceKey[64];
    private AllocationRequest[] requests = new AllocationRequest[64];
    private Assignment[] assignments = new Assignment[64];
    private int size;

    private static int hash(ServiceKey key) {
        int h = key.namespace().hashCode() * 31 + key.name().hashCode();
        return h ^ (h >>> 16);
    }

    int size() {
        return size;
    }

    private int find(ServiceKey key) {
        int mask = keys.length - 1;
        for (int i = hash(key) & mask; keys[i] != null; i = (i + 1) & mask) {
            if (keys[i].equals(key)) {
                return i;
            }
        }
        return -1;
    }

    Assignment assignment(ServiceKey key) {
        int i = find(key);
        return i < 0 ? null : assignments[i];
    }

    AllocationRequest request(ServiceKey key) {
        int i = find(key);
        return i < 0 ? null : requests[i];
    }

    void put(ServiceKey key, AllocationRequest request, Assignment assignment) {
        if ((size + 1) * 2 > keys.length) {
            resize(keys.length * 2);
        }
        int mask = keys.length - 1;
        int i = hash(key) & mask;
        while (keys[i] != null && !keys[i].equals(key)) {
            i = (i + 1) & mask;
        }
        if (keys[i] == null) {
            keys[i] = key;
            size++;
        }
        requests[i] = request;
        assignments[i] = assignment;
    }

    /** Removes the entry; returns its assignment, or null if there was none. */
    Assignment remove(ServiceKey key) {
        int i = find(key);
        if (i < 0) {
            return null;
        }
        Assignment removed = assignments[i];
        set(i, null, null, null);
        size--;
        int mask = keys.length - 1;
        for (int j = (i + 1) & mask; keys[j] != null; j = (j + 1) & mask) {
            int home = hash(keys[j]) & mask;
            boolean homeInHoleToJ = i <= j ? (i < home && home <= j) : (i < home || home <= j);
            if (!homeInHoleToJ) {
                set(i, keys[j], requests[j], assignments[j]);
                set(j, null, null, null);
                i = j;
            }
        }
        return removed;
    }

    private void set(int i, ServiceKey key, AllocationRequest request, Assignment assignment) {
        keys[i] = key;
        requests[i] = request;
        assignments[i] = assignment;
    }

    void clear() {
        keys = new ServiceKey[64];
        requests = new AllocationRequest[64];
        assignments = new Assignment[64];
        size = 0;
    }

    /** Every entry as (request, assignment) pairs. */
    List<AllocationRequest> requests() {
        List<AllocationRequest> all = new ArrayList<>(size);
        for (int i = 0; i < keys.length; i++) {
            if (keys[i] != null) {
                all.add(requests[i]);
            }
        }
        return all;
    }

    List<Assignment> assignments() {
        List<Assignment> all = new ArrayList<>(size);
        for (int i = 0; i < keys.length; i++) {
            if (keys[i] != null) {
                all.add(assignments[i]);
            }
        }
        return all;
    }

    private void resize(int capacity) {
        ServiceKey[] oldKeys = keys;
        AllocationRequest[] oldRequests = requests;
        Assignment[] oldAssignments = assignments;
        keys = new ServiceKey[capacity];
        requests = new AllocationRequest[capacity];
        assignments = new Assignment[capacity];
        int mask = capacity - 1;
        for (int k = 0; k < oldKeys.length; k++) {
            if (oldKeys[k] != null) {
                int i = hash(oldKeys[k]) & mask;
                while (keys[i] != null) {
                    i = (i + 1) & mask;
                }
                set(i, oldKeys[k], oldRequests[k], oldAssignments[k]);
            }
        }
    }
}
