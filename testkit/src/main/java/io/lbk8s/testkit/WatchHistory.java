package io.lbk8s.testkit;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Optional;

/**
 * The recent changes of every object, as kube-apiserver's watch cache keeps them: a watch that resumes from a
 * resourceVersion gets the changes after it (deletions included), or 410 Gone once they are no longer all kept, so
 * that the client lists again. Without it, a client that lost its watch (an API server unreachable for a while) would
 * never hear of the objects deleted meanwhile. Used under the dispatcher's write lock only.
 */
final class WatchHistory {

    /**
     * One change, the objects as JSON text (a tree costs several times as much memory): {@code before} is null for a
     * creation, {@code after} null for a deletion.
     */
    record Change(long version, String group, String plural, String namespace, String before, String after) {}

    private final int capacity;
    private final Deque<Change> changes = new ArrayDeque<>();
    private long current;
    private long forgottenUpTo;

    WatchHistory(int capacity) {
        this.capacity = capacity;
    }

    void record(Change change) {
        changes.addLast(change);
        current = Math.max(current, change.version());
        while (changes.size() > capacity) {
            forgottenUpTo = Math.max(forgottenUpTo, changes.removeFirst().version());
        }
    }

    /** The resourceVersion of the latest change, what a list answers with. */
    long current() {
        return current;
    }

    /** The changes after {@code version}, or empty when some of them are no longer kept (the client must list again). */
    Optional<List<Change>> since(long version) {
        if (version < forgottenUpTo) {
            return Optional.empty();
        }
        return Optional.of(changes.stream().filter(c -> c.version() > version).toList());
    }

    /** Every object was deleted without events: no watch can resume from before {@code now}, a fresh version. */
    void forgetAll(long now) {
        changes.clear();
        current = now;
        forgottenUpTo = now;
    }
}
