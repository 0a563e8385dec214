package io.lbk8s.demo;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * What the client saw when the leader failed, computed from its loop's samples only.
 *
 * @param newNode          the node that answered first after the failure, other than the old leader
 * @param switchOver       from the failure to that first answer
 * @param requests         requests that completed between the failure and that answer
 * @param failed           of those, how many got no answer
 * @param oldNodeAnswers   of those, how many the old node still answered (its kube-proxy forwards until the client's
 *                         neighbor entry moves)
 * @param longestSilence   the longest time between two answers around the switch: the outage as the client felt it
 * @param loopPeriod       the median time between two requests, which bounds how finely the above are measured
 * @param backToOldNode    answers by the old node after the switch (should be 0: a flap)
 */
record Handover(
        String newNode,
        Duration switchOver,
        int requests,
        int failed,
        int oldNodeAnswers,
        Duration longestSilence,
        Duration loopPeriod,
        int backToOldNode) {

    /** Empty when no other node answered after {@code failedAtMicros}. */
    static Optional<Handover> analyze(List<Sample> samples, long failedAtMicros, String oldNode) {
        Optional<Sample> first = samples.stream()
                .filter(s -> s.atMicros() > failedAtMicros && s.answered() && !s.answeredBy(oldNode))
                .findFirst();
        if (first.isEmpty()) {
            return Optional.empty();
        }
        Sample moved = first.get();
        List<Sample> between = samples.stream()
                .filter(s -> s.atMicros() > failedAtMicros && s.atMicros() < moved.atMicros())
                .toList();
        // From the last answer before the failure (or the failure itself if there was none) to the new node's first.
        long windowStart = samples.stream()
                .filter(s -> s.atMicros() <= failedAtMicros && s.answered())
                .mapToLong(Sample::atMicros)
                .max()
                .orElse(failedAtMicros);
        long[] answers = samples.stream()
                .filter(s -> s.answered() && s.atMicros() >= windowStart && s.atMicros() <= moved.atMicros())
                .mapToLong(Sample::atMicros)
                .toArray();
        long longest = answers.length < 2 ? moved.atMicros() - windowStart : 0;
        for (int i = 1; i < answers.length; i++) {
            longest = Math.max(longest, answers[i] - answers[i - 1]);
        }
        return Optional.of(new Handover(
                moved.answeredBy().orElseThrow(),
                micros(moved.atMicros() - failedAtMicros),
                between.size(),
                (int) between.stream().filter(s -> !s.answered()).count(),
                (int) between.stream().filter(s -> s.answeredBy(oldNode)).count(),
                micros(longest),
                medianPeriod(samples),
                (int) samples.stream()
                        .filter(s -> s.atMicros() > moved.atMicros() && s.answeredBy(oldNode))
                        .count()));
    }

    private static Duration medianPeriod(List<Sample> samples) {
        if (samples.size() < 2) {
            return Duration.ZERO;
        }
        long[] gaps = new long[samples.size() - 1];
        for (int i = 1; i < samples.size(); i++) {
            gaps[i - 1] = samples.get(i).atMicros() - samples.get(i - 1).atMicros();
        }
        java.util.Arrays.sort(gaps);
        return micros(gaps[gaps.length / 2]);
    }

    private static Duration micros(long micros) {
        return Duration.ofNanos(micros * 1_000);
    }
}
