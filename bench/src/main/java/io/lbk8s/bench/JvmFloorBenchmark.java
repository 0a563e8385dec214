package io.lbk8s.bench;

import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * What a JVM costs before lbk8s is in it: the distribution's Java runtime with the image's flags and the manifests'
 * heap share under a 256 MiB limit (emulated with -XX:MaxRAM), running (1) nothing, (2) what a speaker does with the
 * JDK alone: four watches over HTTPS to a server on loopback (the JDK's HTTP client and TLS, virtual threads) and a
 * /readyz endpoint (the JDK's HTTP server). No JSON, logging, metrics, raw sockets or Kubernetes client. Prints each
 * one's RSS 15 s after it is ready and its classes loaded: the floor under the speaker's 64 MB target that no change
 * inside lbk8s can go below on this JVM (docs/decisions/0008). Usage, from the repository's root:
 * <pre>
 *   java -cp bench/target/classes:$(cat bench/target/classpath.txt) io.lbk8s.bench.JvmFloorBenchmark DIST_DIR
 * </pre>
 */
public final class JvmFloorBenchmark {
    private JvmFloorBenchmark() {}

    private static final char[] PASSWORD = "lbk8s-bench".toCharArray();

    public static void main(String[] args) throws Exception {
        if (args.length >= 1 && args[0].equals("child")) {
            child(args);
            return;
        }
        Path dist = Path.of(args[0]);
        Path work = Files.createTempDirectory("lbk8s-jvm-floor");
        Path keystore = work.resolve("server.p12");
        // a certificate for 127.0.0.1, so that the child verifies the server as a client of kube-apiserver does
        run(List.of(
                Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair",
                "-keyalg",
                "EC",
                "-alias",
                "server",
                "-dname",
                "CN=127.0.0.1",
                "-ext",
                "SAN=ip:127.0.0.1",
                "-validity",
                "1",
                "-storetype",
                "PKCS12",
                "-keystore",
                keystore.toString(),
                "-storepass",
                new String(PASSWORD)));
        HttpsServer server = watchServer(keystore);
        try {
            for (String what : List.of("nothing", "https-watches")) {
                System.out.printf(
                        "| jvm floor | the image's runtime and flags, 256 MiB (MaxRAM), running %s: RSS 15 s after"
                                + " ready / classes loaded | %s |%n",
                        what.equals("nothing")
                                ? "nothing (a main that sleeps)"
                                : "four watches over HTTPS and a /readyz endpoint with the JDK alone",
                        measure(dist, keystore, what, server.getAddress().getPort()));
            }
        } finally {
            server.stop(0);
            Files.deleteIfExists(keystore);
            Files.deleteIfExists(work);
        }
    }

    /** A server that answers every GET with a few lines, as a watch's events would come. */
    private static HttpsServer watchServer(Path keystore) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = new FileInputStream(keystore.toFile())) {
            store.load(in, PASSWORD);
        }
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(store, PASSWORD);
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(keys.getKeyManagers(), null, null);
        HttpsServer server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(tls));
        server.createContext("/", exchange -> {
            byte[] body =
                    "{\"type\":\"ADDED\"}\n{\"type\":\"MODIFIED\"}\n".repeat(20).getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.setExecutor(
                Executors.newFixedThreadPool(2, Thread.ofPlatform().daemon().factory()));
        server.start();
        return server;
    }

    private static String measure(Path dist, Path keystore, String what, int serverPort) throws Exception {
        List<String> command =
                new ArrayList<>(List.of(dist.resolve("runtime/bin/java").toString()));
        command.addAll(imageFlags(dist));
        command.addAll(List.of(
                "-XX:MaxRAM=256m",
                "-XX:MaxRAMPercentage=25",
                "-XX:MinRAMPercentage=25",
                "-XX:NewRatio=4",
                "-XX:MinHeapFreeRatio=10",
                "-XX:MaxHeapFreeRatio=30",
                "-Djavax.net.ssl.trustStore=" + keystore,
                "-Djavax.net.ssl.trustStorePassword=" + new String(PASSWORD),
                "-cp",
                Path.of("bench/target/classes").toAbsolutePath().toString(),
                JvmFloorBenchmark.class.getName(),
                "child",
                what,
                "https://127.0.0.1:" + serverPort + "/watch"));
        ProcessBuilder builder = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD);
        builder.environment().put("MALLOC_ARENA_MAX", "2");
        builder.environment().remove("JAVA_TOOL_OPTIONS");
        builder.environment().remove("JDK_JAVA_OPTIONS");
        Process child = builder.start();
        try {
            String ready = new java.io.BufferedReader(
                            new java.io.InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))
                    .readLine();
            if (ready == null || !ready.startsWith("ready")) {
                return "not measured: the child said " + ready;
            }
            Thread.sleep(15_000);
            String rss = ProcessMemory.of(child.pid()).describe();
            return rss + " / " + ready.strip().substring("ready ".length());
        } finally {
            child.destroy();
            child.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** The measured JVM: prints "ready CLASSES" once its watches have each had an answer, then runs until killed. */
    private static void child(String[] args) throws Exception {
        if (args[1].equals("https-watches")) {
            HttpServer readyz = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            readyz.createContext("/readyz", exchange -> {
                byte[] body = "ok\n".getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(200, body.length);
                exchange.getResponseBody().write(body);
                exchange.close();
            });
            readyz.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
            readyz.start();
            HttpClient client = HttpClient.newBuilder()
                    .executor(Executors.newVirtualThreadPerTaskExecutor())
                    .build();
            AtomicLong answered = new AtomicLong();
            for (int i = 0; i < 4; i++) {
                URI uri = URI.create(args[2] + "?watch=" + i);
                Thread.ofVirtual().start(() -> {
                    while (true) {
                        try {
                            client.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofLines())
                                    .body()
                                    .forEach(line -> answered.incrementAndGet());
                            Thread.sleep(1000);
                        } catch (IOException e) {
                            System.err.println(e);
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                });
            }
            while (answered.get() < 4 * 40) {
                Thread.sleep(20);
            }
        }
        System.out.println("ready "
                + java.lang.management.ManagementFactory.getClassLoadingMXBean().getLoadedClassCount());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }

    /** The image's JVM flags, as the distribution's launcher (made from the same list as the entrypoint) passes them. */
    static List<String> imageFlags(Path dist) throws IOException {
        String launcher = Files.readString(dist.resolve("bin/lbk8s"));
        var flags = java.util.regex.Pattern.compile("exec \"\\$home/runtime/bin/java\" (.*?) -XX:AOTCache=")
                .matcher(launcher);
        if (!flags.find()) {
            throw new IllegalStateException("no JVM flags in " + dist.resolve("bin/lbk8s"));
        }
        return List.of(flags.group(1).split(" "));
    }

    private static void run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", command) + ": " + out);
        }
    }
}
