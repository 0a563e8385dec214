package io.lbk8s.cluster;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lbk8s.testkit.cluster.KubernetesCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The real-cluster tests need root, the network tools, a Kubernetes build (bin/kubernetes build) and dist's CLI and
 * image; in CI their absence is a failure, elsewhere a skip.
 */
final class ClusterPrerequisites {
    private ClusterPrerequisites() {}

    static void check() {
        Optional<String> missing = KubernetesCluster.missingPrerequisites()
                .or(() -> absent("lbk8s.cli"))
                .or(() -> absent("lbk8s.image.tar"));
        if (missing.isPresent() && "true".equals(System.getenv("CI"))) {
            throw new IllegalStateException("real-cluster tests cannot run: " + missing.get());
        }
        assumeTrue(missing.isEmpty(), () -> "real-cluster tests skipped: " + missing.orElse(""));
    }

    private static Optional<String> absent(String property) {
        String value = System.getProperty(property);
        if (value == null || !Files.exists(Path.of(value))) {
            return Optional.of(property + " (" + value + ") does not exist: package dist first");
        }
        return Optional.empty();
    }
}
