package io.lbk8s.speaker;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * Which interfaces came back up too recently to answer on, pure: fed what is seen of each interface and the passing of
 * time (System.nanoTime values).
 *
 * <p>While its link was down, a speaker heard none of its peers: it took them all for dead and itself for the leader
 * of every address, while they took its addresses. An interface that comes back is therefore held for {@code hold}
 * (the failure detector's detection time), long enough for the speaker to hear its peers again and learn from their
 * reports that they dropped it, before it answers anything there. A link seen up for the first time is not held.
 */
final class ReturnedLinks {
    private sealed interface State {
        record Up() implements State {}

        record Down() implements State {}

        record Held(long until) implements State {}
    }

    private static final State UP = new State.Up();
    private static final State DOWN = new State.Down();

    private final long hold;
    private final Map<Integer, State> states = new HashMap<>();

    ReturnedLinks(Duration hold) {
        this.hold = hold.toNanos();
    }

    /**
     * What was seen of interface {@code index} at {@code now}.
     *
     * @return when the hold ends, if the interface just came back and is now held
     */
    OptionalLong seen(int index, boolean operational, long now) {
        State before = states.get(index);
        State after = switch (before) {
            case null -> operational ? UP : DOWN;
            case State.Up up -> operational ? up : DOWN;
            case State.Down down -> !operational ? down : hold > 0 ? new State.Held(now + hold) : UP;
            case State.Held held -> !operational ? DOWN : now >= held.until() ? UP : held;
        };
        states.put(index, after);
        return after instanceof State.Held held && !(before instanceof State.Held)
                ? OptionalLong.of(held.until())
                : OptionalLong.empty();
    }

    /** Whether interface {@code index} came back less than the hold ago (or is down): nothing is answered there. */
    boolean held(int index, long now) {
        return switch (states.getOrDefault(index, UP)) {
            case State.Up up -> false;
            case State.Down down -> true;
            case State.Held held -> now < held.until();
        };
    }

    /** Interface {@code index} is gone: if one with that index appears, it is new. */
    void forget(int index) {
        states.remove(index);
    }
}
