package io.lbk8s.testkit.net;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/** The commands the test network runs, with the Debian package that provides each. */
enum Tool {
    IP("ip", "iproute2"),
    BRIDGE("bridge", "iproute2"),
    SYSCTL("sysctl", "procps"),
    NFT("nft", "nftables"),
    SOCAT("socat", "socat"),
    CURL("curl", "curl"),
    ARPING("arping", "iputils-arping"),
    NDISC6("ndisc6", "ndisc6"),
    TCPDUMP("tcpdump", "tcpdump");

    /** Searched besides $PATH, because a test JVM's PATH often lacks the sbin directories. */
    static final List<String> SYSTEM_DIRECTORIES =
            List.of("/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin");

    private final String command;
    private final String debianPackage;

    Tool(String command, String debianPackage) {
        this.command = command;
        this.debianPackage = debianPackage;
    }

    String command() {
        return command;
    }

    String debianPackage() {
        return debianPackage;
    }

    /** Absolute path, so it works whatever PATH the JVM got; the bare name if not found (fails later, clearly). */
    String path() {
        return find(command).map(Path::toString).orElse(command);
    }

    boolean installed() {
        return find(command).isPresent();
    }

    static Optional<Path> find(String command) {
        String path = System.getenv().getOrDefault("PATH", "");
        return Stream.concat(Stream.of(path.split(":")), SYSTEM_DIRECTORIES.stream())
                .filter(dir -> !dir.isEmpty())
                .map(dir -> Path.of(dir, command))
                .filter(Files::isExecutable)
                .findFirst();
    }

    /** A PATH for child processes that includes the sbin directories. */
    static String searchPath() {
        String path = System.getenv().getOrDefault("PATH", "");
        return Stream.concat(Stream.of(path.split(":")), SYSTEM_DIRECTORIES.stream())
                .filter(dir -> !dir.isEmpty())
                .distinct()
                .reduce((a, b) -> a + ":" + b)
                .orElse(String.join(":", SYSTEM_DIRECTORIES));
    }
}
