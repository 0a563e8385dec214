package io.lbk8s.kube;

import java.time.Duration;
import java.util.Optional;

/**
 * Whether the API server still answers a component, from what its watches deliver and from a light request sent
 * only after a quiet spell. A partition that drops packets leaves every watch connection open and silent: fabric8's
 * watch then neither fails nor receives, so by itself it cannot tell a quiet cluster from an unreachable API server.
 * Times are {@link System#nanoTime()} readings.
 *
 * @param lastAnswer when the API server last answered: a watch event or an answered request
 * @param unanswered why the latest request went unanswered since then; empty while the API server answers
 */
public record ApiContact(long lastAnswer, Optional<String> unanswered) {

    public static ApiContact answeredAt(long now) {
        return new ApiContact(now, Optional.empty());
    }

    /** The API server answered (a watch event, a request): it is reachable again, if it was not. */
    public ApiContact answered(long now) {
        return new ApiContact(now - lastAnswer > 0 ? now : lastAnswer, Optional.empty());
    }

    /** A request sent at {@code sentAt} went unanswered; an answer that came after it was sent outweighs it. */
    public ApiContact unanswered(long sentAt, String reason) {
        if (lastAnswer - sentAt > 0) {
            return this;
        }
        return new ApiContact(lastAnswer, Optional.of(reason));
    }

    /** A request is worth sending once nothing has come for {@code quiet}. */
    public boolean askDue(long now, Duration quiet) {
        return now - lastAnswer >= quiet.toNanos();
    }

    public boolean reachable() {
        return unanswered.isEmpty();
    }

    /** What a user reads in /readyz while the API server does not answer, e.g. "the API server has not answered for 7 s (...)". */
    public Optional<String> describe(long now) {
        return unanswered.map(reason ->
                "the API server has not answered for " + silentFor(now).toSeconds() + " s (" + reason + ")");
    }

    public Duration silentFor(long now) {
        return Duration.ofNanos(now - lastAnswer);
    }
}
