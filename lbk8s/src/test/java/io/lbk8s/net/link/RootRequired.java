package io.lbk8s.net.link;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Tests that need root (namespaces, raw sockets): a failure on CI, where they must run; skipped elsewhere. */
public final class RootRequired {

    private RootRequired() {}

    public static void check() {
        boolean root = isRoot();
        if (!root && "true".equals(System.getenv("CI"))) {
            fail("this test needs root (network namespaces, CAP_NET_RAW); CI=true, so it must not be skipped");
        }
        assumeTrue(root, "needs root for network namespaces and raw sockets");
    }

    private static boolean isRoot() {
        try {
            return Files.readAllLines(Path.of("/proc/self/status")).stream()
                    .filter(line -> line.startsWith("Uid:"))
                    .anyMatch(line -> line.split("\\s+")[2].equals("0")); // effective uid
        } catch (IOException e) {
            return false;
        }
    }
}
