package io.lbk8s.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * Runs a {@link TestApiServer} as a process:
 * {@code --address A --port P [--kubeconfig FILE] [--crds DIR] [--seed FILE] [--request-log FILE] [--no-stdin]}:
 * {@code --seed} creates the objects of a YAML file once the CRDs are there.
 * Prints {@code READY <url>} on stdout once serving, then runs until SIGTERM/SIGINT or until stdin
 * reaches end of file (unless stdin is /dev/null or {@code --no-stdin} is given). Logs go to stderr.
 */
public final class TestApiServerMain {

    private TestApiServerMain() {}

    record Options(
            InetAddress address, int port, Path kubeconfig, Path crds, Path seed, boolean watchStdin, Path requestLog) {

        static Options parse(String[] args) throws IOException {
            InetAddress address = InetAddress.getLoopbackAddress();
            int port = 0;
            Path kubeconfig = null;
            Path crds = null;
            Path seed = null;
            Path requestLog = null;
            boolean watchStdin = true;
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                String value = a.contains("=") ? a.substring(a.indexOf('=') + 1) : null;
                String name = a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
                if (value == null && !name.equals("--no-stdin") && !name.equals("--help") && !name.equals("-h")) {
                    if (i + 1 >= args.length) {
                        throw new IllegalArgumentException("missing value for " + name);
                    }
                    value = args[++i];
                }
                switch (name) {
                    case "--address" -> address = InetAddress.getByName(value);
                    case "--port" -> port = Integer.parseInt(value);
                    case "--kubeconfig" -> kubeconfig = Path.of(value);
                    case "--crds" -> crds = Path.of(value);
                    case "--seed" -> seed = Path.of(value);
                    case "--request-log" -> requestLog = Path.of(value);
                    case "--no-stdin" -> watchStdin = false;
                    case "--help", "-h" -> throw new IllegalArgumentException("usage");
                    default -> throw new IllegalArgumentException("unknown option " + name);
                }
            }
            return new Options(address, port, kubeconfig, crds, seed, watchStdin, requestLog);
        }
    }

    public static void main(String[] args) throws Exception {
        if (System.getProperty("logback.configurationFile") == null) {
            System.setProperty("logback.configurationFile", "io/lbk8s/testkit/test-api-server-logback.xml");
        }
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(
                    (e.getMessage().equals("usage") ? "" : e.getMessage() + "\n")
                            + "usage: test-api-server --address A --port P [--kubeconfig FILE] [--crds DIR] [--seed FILE] [--request-log FILE] [--no-stdin]");
            System.exit(2);
            return;
        }
        CountDownLatch stop = new CountDownLatch(1);
        TestApiServer server = run(options, System.out);
        Thread hook = new Thread(
                () -> {
                    server.close();
                    stop.countDown();
                },
                "test-api-server-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        if (options.watchStdin() && !stdinIsDevNull()) {
            Thread.ofPlatform().daemon().name("test-api-server-stdin").start(() -> {
                try (InputStream in = System.in) {
                    byte[] buffer = new byte[256];
                    while (in.read(buffer) >= 0) {
                        // discard
                    }
                } catch (IOException ignored) {
                    // treat as closed
                }
                stop.countDown();
            });
        }
        stop.await();
        server.close();
        System.exit(0);
    }

    /** Starts the server, creates CRDs and seed objects, writes the kubeconfig, prints READY; the caller closes it. */
    static TestApiServer run(Options options, PrintStream out) throws IOException {
        TestApiServer server = TestApiServer.start(options.address(), options.port());
        try {
            if (options.crds() != null) {
                server.createCrds(options.crds());
            }
            if (options.seed() != null) {
                server.createObjects(options.seed());
            }
            if (options.kubeconfig() != null) {
                server.writeKubeconfig(options.kubeconfig());
            }
            if (options.requestLog() != null) {
                server.logRequestsTo(options.requestLog());
            }
            out.println("READY " + server.url());
            out.flush();
            return server;
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
    }

    private static boolean stdinIsDevNull() {
        try {
            return Path.of("/dev/null")
                    .toRealPath()
                    .equals(Path.of("/proc/self/fd/0").toRealPath());
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }
}
