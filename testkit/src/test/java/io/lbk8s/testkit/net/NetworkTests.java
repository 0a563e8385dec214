package io.lbk8s.testkit.net;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.Optional;
import org.junit.jupiter.api.Assumptions;

/** Shared rules of the tests that build real networks. */
final class NetworkTests {

    private NetworkTests() {}

    static boolean networkCanBeBuilt() {
        return TestNetwork.missingPrerequisites().isEmpty();
    }

    /** Skips where a network cannot be built, but fails on CI, where a skip would hide the gap. */
    static void assumeNetworkCanBeBuilt() {
        Optional<String> missing = TestNetwork.missingPrerequisites();
        if (missing.isEmpty()) {
            return;
        }
        if ("true".equalsIgnoreCase(System.getenv("CI"))) {
            fail("CI=true, but the test network cannot be built here: " + missing.get());
        }
        Assumptions.abort("test network skipped: " + missing.get());
    }

    static void assumeRouter(RouterKind kind) {
        Optional<String> missing = TestNetwork.missingPrerequisites(kind);
        if (missing.isEmpty()) {
            return;
        }
        if ("true".equalsIgnoreCase(System.getenv("CI"))) {
            fail("CI=true, but " + kind + " cannot run here: " + missing.get());
        }
        Assumptions.abort(kind + " skipped: " + missing.get());
    }

    static void assumeTool(String command, String debianPackage) {
        if (Tool.find(command).isPresent()) {
            return;
        }
        String message = "needs the command " + command + " (Debian package " + debianPackage + ")";
        if ("true".equalsIgnoreCase(System.getenv("CI"))) {
            fail("CI=true, but " + message);
        }
        Assumptions.abort(message);
    }
}
