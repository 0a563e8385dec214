package io.lbk8s.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.service.ServiceKey;
import io.lbk8s.service.ServiceRequests.Warning;
import java.util.List;
import org.junit.jupiter.api.Test;

class SaidWarningsTest {
    static final ServiceKey WEB = new ServiceKey("default", "web");
    static final Warning POOL = new Warning(Warning.Reason.DeprecatedAnnotation, "pool is deprecated");
    static final Warning SHARED = new Warning(Warning.Reason.DeprecatedAnnotation, "sharing key is deprecated");

    final SaidWarnings said = new SaidWarnings();

    @Test
    void eachWarningIsSaidOnceHoweverOftenTheServiceIsReconciled() {
        assertThat(said.unsaid(WEB, "uid-1", List.of(POOL, SHARED))).containsExactly(POOL, SHARED);
        assertThat(said.unsaid(WEB, "uid-1", List.of(POOL, SHARED))).isEmpty();
        assertThat(said.unsaid(WEB, "uid-1", List.of(SHARED, POOL))).isEmpty();
    }

    @Test
    void aWarningThatWentAwayIsSaidAgainWhenItComesBack() {
        said.unsaid(WEB, "uid-1", List.of(POOL, SHARED));
        assertThat(said.unsaid(WEB, "uid-1", List.of(SHARED))).isEmpty();
        assertThat(said.unsaid(WEB, "uid-1", List.of(POOL, SHARED))).containsExactly(POOL);
    }

    @Test
    void warningsThatAllWentAwayAreSaidAgainWhenTheyComeBack() {
        said.unsaid(WEB, "uid-1", List.of(POOL, SHARED));
        assertThat(said.unsaid(WEB, "uid-1", List.of())).isEmpty();
        assertThat(said.unsaid(WEB, "uid-1", List.of(POOL))).containsExactly(POOL);
    }

    @Test
    void aServiceCreatedAgainOrForgottenHearsEverythingAfresh() {
        said.unsaid(WEB, "uid-1", List.of(POOL));
        assertThat(said.unsaid(WEB, "uid-2", List.of(POOL))).containsExactly(POOL);
        said.forget(WEB);
        assertThat(said.unsaid(WEB, "uid-2", List.of(POOL))).containsExactly(POOL);
    }
}
