package io.lbk8s.dist;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The .tar.gz, unpacked elsewhere, runs with no JDK: empty PATH, no JAVA_HOME, the bundled runtime and AOT cache. */
class DistributionIT {
    static final Duration RUN = Duration.ofSeconds(60);

    @TempDir
    static Path temp;

    static Path home;

    @BeforeAll
    static void unpack() throws IOException {
        Path tarball = Path.of(System.getProperty("lbk8s.dist"));
        assertThat(tarball).as("built by package").exists();
        Cmd.run(RUN, List.of("tar", "-xzf", tarball.toString(), "-C", temp.toString()))
                .ok();
        try (Stream<Path> entries = Files.list(temp)) {
            home = entries.filter(Files::isDirectory).findFirst().orElseThrow();
        }
        assertThat(home.getFileName().toString()).matches("lbk8s-.*-linux-x64");
    }

    /** Only the launcher's own needs: no PATH entries, no JAVA_HOME. */
    static Map<String, String> bareEnv(String... more) {
        var env = new java.util.HashMap<String, String>();
        env.put("PATH", "");
        for (int i = 0; i < more.length; i += 2) {
            env.put(more[i], more[i + 1]);
        }
        return env;
    }

    @Test
    void layout() {
        assertThat(home.resolve("bin/lbk8s")).isExecutable();
        assertThat(home.resolve("runtime/bin/java")).isExecutable();
        assertThat(home.resolve("lbk8s.jar")).isRegularFile();
        assertThat(home.resolve("lbk8s.aot")).isRegularFile();
        assertThat(home.resolve("lbk8s-speaker.aot")).isRegularFile();
        assertThat(home.resolve("lib")).isDirectoryContaining("glob:**/kubernetes-client-*.jar");
        assertThat(home.resolve("README")).content().contains("bin/lbk8s");
        assertThat(home.resolve("runtime/include")).doesNotExist();
    }

    @Test
    void versionWithoutJdk() {
        // AOTMode=on: the JVM refuses to start unless the AOT cache made at build time fits this unpacked copy
        Cmd version = Cmd.run(
                        RUN,
                        bareEnv("JAVA_OPTS", "-XX:AOTMode=on"),
                        List.of(home.resolve("bin/lbk8s").toString(), "version"))
                .ok();
        assertThat(version.out())
                .matches("lbk8s " + java.util.regex.Pattern.quote(System.getProperty("lbk8s.version"))
                        + " \\(Java 25[^)]*\\)\\s*");
        assertThat(version.err()).isEmpty();
    }

    @Test
    void speakerHelpWithoutJdk() {
        // AOTMode=on: the launcher gives the speaker its own cache, and it fits
        Cmd help = Cmd.run(
                        RUN,
                        bareEnv("JAVA_OPTS", "-XX:AOTMode=on"),
                        List.of(home.resolve("bin/lbk8s").toString(), "speaker", "--help"))
                .ok();
        assertThat(help.out()).contains("Usage: lbk8s speaker", "--node");
        assertThat(help.err()).as("no JVM warning, e.g. about the AOT cache").isEmpty();
    }

    @Test
    void runtimeHasTheModulesJdepsFinds() {
        Path app = Path.of(System.getProperty("lbk8s.app"));
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "jdeps").toString(),
                "--ignore-missing-deps",
                "--multi-release",
                "25",
                "--print-module-deps",
                "--class-path",
                app.resolve("lib") + "/*",
                app.resolve("lbk8s.jar").toString()));
        try (Stream<Path> libs = Files.list(app.resolve("lib"))) {
            libs.map(Path::toString).sorted().forEach(command::add);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        Cmd jdeps = Cmd.run(Duration.ofSeconds(120), command).ok();
        String[] lines = jdeps.out().strip().split("\n");
        Set<String> needed =
                new TreeSet<>(Arrays.asList(lines[lines.length - 1].strip().split(",")));
        // java.desktop: only jackson's optional java.beans support and micrometer's Log4j2 binder (unused) refer to it
        needed.remove("java.desktop");
        Set<String> linked = runtimeModules();
        assertThat(linked).containsAll(needed);
    }

    static Set<String> runtimeModules() {
        var release = new Properties();
        try (InputStream in = Files.newInputStream(home.resolve("runtime/release"))) {
            release.load(in);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        return Arrays.stream(release.getProperty("MODULES").replace("\"", "").split(" "))
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /**
     * The controller, on the bundled runtime, reaches an API server over TLS (a loopback HTTPS server here that
     * answers every request with an empty list): the runtime has what fabric8's JDK HTTP client and TLS need.
     */
    @Test
    void controllerTalksTlsToAnApiServer() throws Exception {
        Path keystore = temp.resolve("server.p12");
        Cmd.run(
                        RUN,
                        List.of(
                                Path.of(System.getProperty("java.home"), "bin", "keytool")
                                        .toString(),
                                "-genkeypair",
                                "-keystore",
                                keystore.toString(),
                                "-storetype",
                                "PKCS12",
                                "-storepass",
                                "changeit",
                                "-alias",
                                "api",
                                "-keyalg",
                                "EC",
                                "-groupname",
                                "secp256r1",
                                "-dname",
                                "CN=localhost",
                                "-ext",
                                "san=ip:127.0.0.1",
                                "-validity",
                                "2"))
                .ok();
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (var in = new FileInputStream(keystore.toFile())) {
            ks.load(in, "changeit".toCharArray());
        }
        var kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, "changeit".toCharArray());
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(kmf.getKeyManagers(), null, null);

        List<String> requests = new CopyOnWriteArrayList<>();
        HttpsServer server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(tls));
        server.createContext("/", exchange -> {
            requests.add(exchange.getRequestMethod() + " " + exchange.getRequestURI());
            byte[] body = "{\"metadata\":{\"resourceVersion\":\"1\"},\"items\":[]}".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        Path kubeconfig = temp.resolve("kubeconfig");
        Files.writeString(kubeconfig, """
                apiVersion: v1
                kind: Config
                clusters: [{name: t, cluster: {server: "https://127.0.0.1:%d", insecure-skip-tls-verify: true}}]
                users: [{name: t, user: {token: t}}]
                contexts: [{name: t, context: {cluster: t, user: t}}]
                current-context: t
                """.formatted(server.getAddress().getPort()));
        Path log = temp.resolve("controller.log");
        Process controller = new ProcessBuilder(
                        home.resolve("bin/lbk8s").toString(),
                        "controller",
                        "--kubeconfig",
                        kubeconfig.toString(),
                        "--metrics-address",
                        "127.0.0.1",
                        "--metrics-port",
                        "0")
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (requests.stream().noneMatch(r -> r.startsWith("GET /api"))
                    && controller.isAlive()
                    && System.nanoTime() < deadline) {
                Thread.sleep(200);
            }
            assertThat(requests)
                    .as("requests over TLS; controller log:\n%s", Files.readString(log))
                    .anyMatch(r -> r.startsWith("GET /api"));
        } finally {
            controller.destroy();
            if (!controller.waitFor(30, TimeUnit.SECONDS)) {
                controller.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            server.stop(0);
        }
        assertThat(Files.readString(log))
                .doesNotContain("NoClassDefFoundError", "ClassNotFoundException", "SSLHandshakeException");
    }
}
