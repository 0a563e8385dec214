package io.lbk8s.testkit.net;

import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.regex.Pattern;

/** The per-node HTTP backend: socat forking a tiny shell script per connection. */
final class Backend {

    /** socat -d -d prints "N listening on AF=2 198.18.7.11:8080" once it accepts connections. */
    static final Pattern LISTENING = Pattern.compile("listening on");

    private Backend() {}

    static List<String> command(InetAddress address, Path script) {
        String listen = address instanceof Inet6Address
                ? "TCP6-LISTEN:" + TestNetwork.BACKEND_PORT + ",bind=[" + Addressing.text(address) + "]"
                : "TCP4-LISTEN:" + TestNetwork.BACKEND_PORT + ",bind=" + Addressing.text(address);
        // -T 5: a client that connects and sends nothing does not keep a child forever.
        return List.of(Tool.SOCAT.path(), "-d", "-d", "-T", "5", listen + ",fork,reuseaddr", "EXEC:" + script);
    }

    /**
     * A script rather than socat's SYSTEM: the response contains ':' and ',' which socat's address
     * syntax would split. It reads the request headers first: closing with unread input makes the
     * kernel send RST, and curl may then lose the response.
     */
    static Path writeScript(Path directory, TestNode node) throws IOException {
        String body = node.backendBody();
        String script = """
        #!/bin/sh
        cr=$(printf '\\r')
        while IFS= read -r line; do
          case "$line" in "$cr"|"") break ;; esac
        done
        printf 'HTTP/1.0 200 OK\\r\\nContent-Type: text/plain\\r\\nContent-Length: %d\\r\\nConnection: close\\r\\n\\r\\n%s\\n'
        """.formatted(body.getBytes(StandardCharsets.US_ASCII).length, node.name());
        Path file = directory.resolve("backend-" + node.name() + ".sh");
        Files.writeString(file, script);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
        return file;
    }
}
