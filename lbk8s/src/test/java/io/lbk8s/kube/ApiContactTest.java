package io.lbk8s.kube;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ApiContactTest {
    static final long S = 1_000_000_000L;
    static final Duration QUIET = Duration.ofSeconds(5);

    @Test
    void aRequestIsSentOnlyAfterAQuietSpell() {
        ApiContact heardAt10 = ApiContact.answeredAt(10 * S);
        assertThat(heardAt10.askDue(14 * S, QUIET)).isFalse();
        assertThat(heardAt10.askDue(15 * S, QUIET)).isTrue();
        assertThat(heardAt10.answered(14 * S).askDue(15 * S, QUIET))
                .as("a watch event restarts the spell")
                .isFalse();
        assertThat(heardAt10.answered(9 * S).lastAnswer())
                .as("an older answer changes nothing")
                .isEqualTo(10 * S);
    }

    @Test
    void anUnansweredRequestMakesItUnreachableUntilTheNextAnswer() {
        ApiContact silent = ApiContact.answeredAt(10 * S).unanswered(15 * S, "GET /version unanswered after 3000 ms");
        assertThat(silent.reachable()).isFalse();
        assertThat(silent.describe(18 * S))
                .contains("the API server has not answered for 8 s (GET /version unanswered after 3000 ms)");
        assertThat(silent.askDue(23 * S, QUIET)).as("it keeps asking").isTrue();

        ApiContact stillSilent = silent.unanswered(23 * S, "GET /version: Connection refused");
        assertThat(stillSilent.unanswered()).contains("GET /version: Connection refused");
        assertThat(stillSilent.describe(26 * S))
                .contains("the API server has not answered for 16 s (GET /version: Connection refused)");

        ApiContact back = stillSilent.answered(30 * S);
        assertThat(back.reachable()).isTrue();
        assertThat(back.describe(30 * S)).isEmpty();
        assertThat(back.askDue(31 * S, QUIET)).isFalse();
    }

    @Test
    void anAnswerThatCameWhileTheRequestWasOutOutweighsItsFailure() {
        ApiContact heardMeanwhile = ApiContact.answeredAt(10 * S).answered(16 * S);
        assertThat(heardMeanwhile.unanswered(15 * S, "timeout")).isEqualTo(heardMeanwhile);
        assertThat(heardMeanwhile.unanswered(16 * S, "timeout").reachable())
                .as("sent after the answer")
                .isFalse();
        assertThat(ApiContact.answeredAt(Long.MAX_VALUE)
                        .answered(Long.MIN_VALUE)
                        .lastAnswer())
                .as("nanoTime readings compared by difference, as they may wrap")
                .isEqualTo(Long.MIN_VALUE);
    }
}
