package io.lbk8s.net;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Two throwaway network namespaces joined by a veth pair with fixed MACs and addresses, nothing else: no traffic
 * can leave them. A holds a0 (02:00:00:00:00:0a, 198.18.99.1/24, fd99::1/64) and a bridge br0 with a member d0 (one end of an unused veth pair)
 * (to see LinkInfo.master), B holds b0 (02:00:00:00:00:0b, 198.18.99.2/24, fd99::2/64). Always close().
 */
final class TestNetwork implements AutoCloseable {

    record Result(int exitCode, String output) {}

    final String a;
    final String b;

    private TestNetwork(String a, String b) {
        this.a = a;
        this.b = b;
    }

    static TestNetwork create() {
        String suffix = Integer.toHexString(ThreadLocalRandom.current().nextInt(0x10000, 0xfffff));
        TestNetwork network = new TestNetwork("lbk8snet-" + suffix + "-a", "lbk8snet-" + suffix + "-b");
        try {
            network.setUp();
            return network;
        } catch (RuntimeException | Error e) {
            network.close();
            throw e;
        }
    }

    private void setUp() {
        must("ip", "netns", "add", a);
        must("ip", "netns", "add", b);
        must("ip", "link", "add", "a0", "netns", a, "address", "02:00:00:00:00:0a", "type", "veth",
                "peer", "name", "b0", "netns", b, "address", "02:00:00:00:00:0b");
        for (String ns : List.of(a, b)) {
            must("ip", "-n", ns, "link", "set", "lo", "up");
        }
        must("ip", "-n", a, "addr", "add", "198.18.99.1/24", "dev", "a0");
        must("ip", "-n", a, "addr", "add", "fd99::1/64", "dev", "a0", "nodad");
        must("ip", "-n", b, "addr", "add", "198.18.99.2/24", "dev", "b0");
        must("ip", "-n", b, "addr", "add", "fd99::2/64", "dev", "b0", "nodad");
        must("ip", "-n", a, "link", "add", "br0", "type", "bridge");
        must("ip", "-n", a, "link", "add", "d0", "type", "veth", "peer", "name", "d1"); // no dummy module here
        must("ip", "-n", a, "link", "set", "d0", "master", "br0");
        must("ip", "-n", a, "link", "set", "a0", "up");
        must("ip", "-n", b, "link", "set", "b0", "up");
        awaitNoTentativeAddress(a, "a0");
        awaitNoTentativeAddress(b, "b0");
    }

    /**
     * Waits (at most 5 s) until duplicate address detection of the link-local addresses is over. One run of the
     * unsolicited-NA test, the first test after setup, failed when it started right after link up; tests now
     * start on a settled link.
     */
    private void awaitNoTentativeAddress(String ns, String device) {
        for (int i = 0; i < 50; i++) {
            if (run(List.of("ip", "-n", ns, "-6", "addr", "show", "dev", device, "tentative")).output().isBlank()) {
                return;
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        throw new IllegalStateException("IPv6 addresses on " + device + " in " + ns + " still tentative after 5 s");
    }

    /** Runs a command inside a namespace, bounded to 20 s. */
    Result in(String ns, String... command) {
        List<String> full = new ArrayList<>(List.of("ip", "netns", "exec", ns));
        full.addAll(List.of(command));
        return run(full);
    }

    static Result run(List<String> command) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("timed out: " + command);
            }
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return new Result(process.exitValue(), output);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static String must(String... command) {
        Result result = run(List.of(command));
        if (result.exitCode() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed: " + result.output());
        }
        return result.output();
    }

    @Override
    public void close() {
        // deleting a namespace deletes its veth end, and so the pair
        run(List.of("ip", "netns", "del", a));
        run(List.of("ip", "netns", "del", b));
    }
}
