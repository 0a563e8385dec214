package io.lbk8s.e2e;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lbk8s.testkit.net.TestNetwork;
import java.util.Optional;

/** The end-to-end tests need root and the network tools; in CI their absence is a failure, elsewhere a skip. */
final class E2ePrerequisites {
    private E2ePrerequisites() {}

    static void check() {
        Optional<String> missing = TestNetwork.missingPrerequisites();
        if (missing.isPresent() && "true".equals(System.getenv("CI"))) {
            throw new IllegalStateException("end-to-end tests cannot run: " + missing.get());
        }
        assumeTrue(missing.isEmpty(), () -> "end-to-end tests skipped: " + missing.orElse(""));
    }
}
