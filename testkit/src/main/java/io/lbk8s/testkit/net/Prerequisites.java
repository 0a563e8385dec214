package io.lbk8s.testkit.net;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;

/** What the machine must allow; the tools are checked through {@link Tool}. */
final class Prerequisites {

    private static final int CAP_NET_ADMIN = 12;
    private static final int CAP_SYS_ADMIN = 21; // ip netns add/exec mount namespaces and /sys

    private Prerequisites() {}

    static boolean hasNetworkCapabilities() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("CapEff:")) {
                    BigInteger effective =
                            new BigInteger(line.substring("CapEff:".length()).strip(), 16);
                    return effective.testBit(CAP_NET_ADMIN) && effective.testBit(CAP_SYS_ADMIN);
                }
            }
            return false;
        } catch (IOException | RuntimeException e) {
            return false; // not Linux, or no /proc: no namespaces either
        }
    }
}
