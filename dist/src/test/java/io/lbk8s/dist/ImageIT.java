package io.lbk8s.dist;

import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.install.Manifests;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The offline image tarball (scratch + glibc + jlinked runtime + AOT cache), loaded into a Docker engine the test
 * starts in a network namespace of its own, runs the CLI as uid 65532 with no network and a read-only root.
 * Needs root (network namespace, dockerd); elsewhere it is skipped, except under CI=true where it fails.
 */
class ImageIT {
    static final Duration RUN = Duration.ofSeconds(90);
    static final String IMAGE = System.getProperty("lbk8s.image");
    static DockerEngine engine;

    @BeforeAll
    static void startEngineAndLoad() throws Exception {
        requireOrSkip(uid() == 0, "ImageIT needs root (a network namespace and dockerd); uid is " + uid());
        for (String tool : List.of("dockerd", "docker", "nsenter", "ip")) {
            requireOrSkip(
                    onPath(tool),
                    "ImageIT needs " + tool + " on PATH (Debian: apt-get install docker.io iproute2 util-linux)");
        }
        Path tar = Path.of(System.getProperty("lbk8s.image.tar"));
        assertThat(tar).as("built by package (jib:buildTar)").exists();
        engine = DockerEngine.start();
        Cmd load = engine.docker(Duration.ofSeconds(180), "load", "--input", tar.toString());
        assertThat(load.exit())
                .as("%s\n--- dockerd log ---\n%s", load, engine.logTail())
                .isZero();
        assertThat(load.out()).contains(IMAGE);
    }

    @AfterAll
    static void tearDown() {
        if (engine != null) {
            engine.docker(Duration.ofSeconds(60), "image", "rm", "--force", IMAGE);
            engine.close();
            engine = null;
        }
    }

    static void requireOrSkip(boolean condition, String message) {
        if (!condition) {
            if ("true".equals(System.getenv("CI"))) {
                throw new AssertionError(message + " (CI=true: this test must run there)");
            }
            Assumptions.abort(message);
        }
    }

    static long uid() {
        try {
            return ((Number) Files.getAttribute(Path.of("/proc/self"), "unix:uid")).longValue();
        } catch (Exception e) {
            return -1;
        }
    }

    static boolean onPath(String tool) {
        return Arrays.stream(System.getenv().getOrDefault("PATH", "").split(":"))
                .anyMatch(dir -> !dir.isEmpty() && Files.isExecutable(Path.of(dir, tool)));
    }

    static Cmd runInImage(String... args) {
        var command = new ArrayList<>(List.of(
                "run",
                "--rm",
                "--user",
                "65532",
                "--network",
                "none",
                "--read-only",
                "--cap-drop",
                "ALL",
                "--security-opt",
                "no-new-privileges"));
        command.addAll(List.of(args));
        return engine.docker(RUN, command.toArray(String[]::new));
    }

    @Test
    void imageConfig() {
        String user = engine.docker(RUN, "image", "inspect", "--format", "{{.Config.User}}", IMAGE)
                .ok()
                .out()
                .strip();
        assertThat(user).isEqualTo("65532:65532");
        String entrypoint = engine.docker(RUN, "image", "inspect", "--format", "{{json .Config.Entrypoint}}", IMAGE)
                .ok()
                .out()
                .strip();
        List<String> expected = new ArrayList<>();
        expected.add("/opt/lbk8s/runtime/bin/java");
        expected.addAll(List.of(System.getProperty("lbk8s.jvm.flags").split(",")));
        expected.addAll(List.of("-jar", "/opt/lbk8s/lbk8s.jar"));
        assertThat(entrypoint)
                .isEqualTo(expected.stream().map(s -> "\"" + s + "\"").collect(Collectors.joining(",", "[", "]")));
        String os = engine.docker(RUN, "image", "inspect", "--format", "{{.Os}}/{{.Architecture}}", IMAGE)
                .ok()
                .out()
                .strip();
        assertThat(os).isEqualTo("linux/amd64");
        String size = engine.docker(RUN, "image", "inspect", "--format", "{{.Size}}", IMAGE)
                .ok()
                .out()
                .strip();
        System.out.printf(
                "[ImageIT] %s: %.1f MB unpacked, %.1f MB as the loaded tarball%n",
                IMAGE,
                Long.parseLong(size) / 1e6,
                Path.of(System.getProperty("lbk8s.image.tar")).toFile().length() / 1e6);
    }

    @Test
    void version() {
        Cmd version = runInImage(IMAGE, "version");
        assertThat(version.exit()).as("%s", version).isZero();
        assertThat(version.out())
                .matches("lbk8s " + Pattern.quote(System.getProperty("lbk8s.version")) + " \\(Java 25[^)]*\\)\\s*");
        assertThat(version.err()).as("no JVM warning, e.g. about the AOT cache").isEmpty();
    }

    @Test
    void speakerHelp() {
        Cmd help = runInImage(IMAGE, "speaker", "--help");
        assertThat(help.exit()).as("%s", help).isZero();
        assertThat(help.out()).contains("Usage: lbk8s speaker", "--node");
        assertThat(help.err()).as("no JVM warning, e.g. about the AOT cache").isEmpty();
    }

    @Test
    void eachRoleMapsItsAotCacheWithTheManifestsOptions() {
        // AOTMode=on: the JVM refuses to start unless it maps the cache the manifests' JDK_JAVA_OPTIONS name
        Cmd version = runInImage(
                "--env", "JDK_JAVA_OPTIONS=" + Manifests.CONTROLLER_JVM_OPTIONS + " -XX:AOTMode=on", IMAGE, "version");
        assertThat(version.exit()).as("%s", version).isZero();
        assertThat(version.out()).startsWith("lbk8s ");
        Cmd speaker = runInImage(
                "--env",
                "JDK_JAVA_OPTIONS=" + Manifests.SPEAKER_JVM_OPTIONS + " -XX:AOTMode=on",
                IMAGE,
                "speaker",
                "--help");
        assertThat(speaker.exit()).as("%s", speaker).isZero();
        assertThat(speaker.out()).contains("Usage: lbk8s speaker");
    }

    @Test
    void sbomCopiesOutOfTheImage() throws Exception {
        requireOrSkip(
                !"offline=true".equals(System.getProperty("lbk8s.maven")),
                "offline build (-o): no SBOM in the image (cyclonedx-maven-plugin's makeBom runs only online)");
        // the image has no shell: docker cp from a container that is created, never started
        String container = "lbk8s-sbom-" + ProcessHandle.current().pid();
        engine.docker(RUN, "create", "--name", container, IMAGE).ok();
        Path out = Files.createTempDirectory("lbk8s-sbom");
        try {
            engine.docker(RUN, "cp", container + ":/opt/lbk8s/sbom.cdx.json", out.toString())
                    .ok();
            assertThat(Files.readString(out.resolve("sbom.cdx.json")))
                    .isEqualTo(Files.readString(Path.of(System.getProperty("lbk8s.target"), "lbk8s-image.cdx.json")));
        } finally {
            engine.docker(RUN, "rm", "--force", container);
            Files.deleteIfExists(out.resolve("sbom.cdx.json"));
            Files.deleteIfExists(out);
        }
    }
}
