package io.lbk8s.demo;

import io.lbk8s.testkit.net.NamespacedProcess;
import io.lbk8s.testkit.net.TestNetwork;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A client on the LAN calling the Service without pause: a bash loop in the client namespace running curl every
 * {@link #PAUSE} with short timeouts, printing when each answer came and from which node. It runs inside the
 * namespace, so no `ip netns exec` start-up sits between two requests, and it stops by itself after
 * {@link #MAX_REQUESTS} requests or {@link #MAX_TIME}, even if this JVM were gone.
 */
final class ClientLoop implements AutoCloseable {
    static final Duration PAUSE = Duration.ofMillis(20);
    static final int MAX_REQUESTS = 2_000;
    static final Duration MAX_TIME = Duration.ofSeconds(90);

    private final NamespacedProcess process;
    final String url;

    private ClientLoop(NamespacedProcess process, String url) {
        this.process = process;
        this.url = url;
    }

    static ClientLoop start(TestNetwork network, String url, Path log) {
        // curl's timeouts are short so that a dead path costs a fraction of a second, not a TCP retransmission.
        String script = """
                i=0; end=$((SECONDS + %d))
                while [ "$i" -lt %d ] && [ "$SECONDS" -lt "$end" ]; do
                  i=$((i + 1))
                  if body=$(curl -sf -g --noproxy '*' --connect-timeout 0.2 --max-time 0.4 '%s'); then
                    echo "$EPOCHREALTIME ok $body"
                  else
                    echo "$EPOCHREALTIME fail"
                  fi
                  sleep %s
                done
                """.formatted(MAX_TIME.toSeconds(), MAX_REQUESTS, url, PAUSE.toMillis() / 1000.0);
        return new ClientLoop(network.start(network.client().namespace(), List.of("bash", "-c", script), log), url);
    }

    /** Everything the loop reported so far, in order. */
    List<Sample> samples() {
        return process.log()
                .lines()
                .map(Sample::parse)
                .flatMap(Optional::stream)
                .toList();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    @Override
    public void close() {
        process.stop(Duration.ofSeconds(1));
    }
}
