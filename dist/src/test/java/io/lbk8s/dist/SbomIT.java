package io.lbk8s.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The SBOMs the build made: the jar's, the distribution's (in dist/target and in the unpacked .tar.gz) and the
 * image's (in dist/target and at /opt/lbk8s/sbom.cdx.json in the image tarball's layers, unpacked here: no Docker
 * engine needed). Each is checked against what it describes: the jars in lib/, the runtime's own version and module
 * list, the glibc version that the image's libc.so.6 prints. An offline build makes none (cyclonedx-maven-plugin's
 * makeBom requires online mode): then this test is skipped, except under CI=true where it fails.
 */
class SbomIT {
    static final Duration RUN = Duration.ofSeconds(120);
    static final JsonMapper JSON = new JsonMapper();
    static final String VERSION = System.getProperty("lbk8s.version");
    static final Path TARGET = Path.of(System.getProperty("lbk8s.target", "target"));

    @TempDir
    static Path temp;

    static Path dist;
    static Path image;

    @BeforeAll
    static void unpack() throws IOException {
        ImageIT.requireOrSkip(
                !"offline=true".equals(System.getProperty("lbk8s.maven")),
                "offline build (-o): cyclonedx-maven-plugin's makeBom runs only online, so there are no SBOMs");
        Path tarball = Path.of(System.getProperty("lbk8s.dist"));
        Path distDir = Files.createDirectories(temp.resolve("dist"));
        Cmd.run(RUN, List.of("tar", "-xzf", tarball.toString(), "-C", distDir.toString()))
                .ok();
        dist = distDir.resolve("lbk8s-" + VERSION + "-linux-x64");

        // the image tarball (docker load's format): manifest.json names the layers, applied in order
        Path tar = Files.createDirectories(temp.resolve("image-tar"));
        image = Files.createDirectories(temp.resolve("image"));
        Cmd.run(RUN, List.of("tar", "-xf", System.getProperty("lbk8s.image.tar"), "-C", tar.toString()))
                .ok();
        JsonNode manifest = JSON.readTree(Files.readString(tar.resolve("manifest.json")));
        for (JsonNode layer : manifest.path(0).path("Layers")) {
            Cmd.run(RUN, List.of("tar", "-xzf", tar.resolve(layer.asString()).toString(), "-C", image.toString()))
                    .ok();
        }
    }

    static JsonNode read(Path file) {
        assertThat(file).as("an SBOM the build makes").isRegularFile();
        try {
            return JSON.readTree(Files.readString(file));
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /** What every SBOM must be: CycloneDX JSON whose components all have a purl, and whose graph refers to them. */
    static void assertValidCycloneDx(JsonNode bom) {
        assertThat(bom.path("bomFormat").asString()).isEqualTo("CycloneDX");
        assertThat(bom.path("specVersion").asString()).isEqualTo("1.6");
        assertThat(bom.path("serialNumber").asString()).matches("urn:uuid:[0-9a-f-]{36}");
        assertThat(bom.path("metadata").path("component").path("purl").asString())
                .startsWith("pkg:");
        assertThat(bom.path("components").isArray() && !bom.path("components").isEmpty())
                .isTrue();
        Set<String> refs = new HashSet<>();
        refs.add(bom.path("metadata").path("component").path("bom-ref").asString());
        for (JsonNode component : bom.path("components")) {
            assertThat(component.path("purl").asString())
                    .as("purl of %s", component.path("name"))
                    .startsWith("pkg:");
            assertThat(component.path("version").asString())
                    .as("version of %s", component.path("name"))
                    .isNotEmpty();
            refs.add(component.path("bom-ref").asString());
        }
        for (JsonNode dependency : bom.path("dependencies")) {
            assertThat(refs).contains(dependency.path("ref").asString());
            for (JsonNode needed : dependency.path("dependsOn")) {
                assertThat(refs).contains(needed.asString());
            }
        }
    }

    /** The jars of lib/ (artifactId-version.jar, as copy-dependencies names them) that no component matches. */
    static List<String> jarsMissingFrom(JsonNode bom, Path lib) {
        Set<String> listed = new HashSet<>();
        for (JsonNode component : bom.path("components")) {
            if (component.path("purl").asString().startsWith("pkg:maven/")) {
                listed.add(component.path("name").asString() + "-"
                        + component.path("version").asString() + ".jar");
            }
        }
        List<String> missing = new ArrayList<>();
        for (String jar : jarNames(lib)) {
            if (!listed.contains(jar)) {
                missing.add(jar);
            }
        }
        return missing;
    }

    static Set<String> jarNames(Path lib) {
        try (Stream<Path> files = Files.list(lib)) {
            Set<String> names = new TreeSet<>();
            files.map(f -> f.getFileName().toString())
                    .filter(n -> n.endsWith(".jar"))
                    .forEach(names::add);
            assertThat(names).as("jars in %s", lib).isNotEmpty();
            return names;
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /** The jar itself, in the version the build made, and the runtime as the runtime itself reports it. */
    static void assertListsJarAndRuntime(JsonNode bom, Path home) {
        JsonNode jar = ComposeSbomTest.component(bom, "lbk8s");
        assertThat(jar.path("version").asString()).isEqualTo(VERSION);
        assertThat(jar.path("purl").asString()).startsWith("pkg:maven/io.lbk8s/lbk8s@");

        String java = home.resolve("runtime/bin/java").toString();
        JsonNode runtime = ComposeSbomTest.component(bom, "temurin");
        String version = runtime.path("version").asString();
        assertThat(runtime.path("publisher").asString()).isEqualTo("Eclipse Adoptium");
        assertThat(Cmd.run(RUN, List.of(java, "--version")).ok().out())
                .contains("Temurin-" + version)
                .contains("(build " + version);
        Set<String> modules = new TreeSet<>();
        for (String line :
                Cmd.run(RUN, List.of(java, "--list-modules")).ok().out().split("\n")) {
            if (!line.isBlank()) {
                modules.add(line.strip().replaceFirst("@.*", ""));
            }
        }
        Set<String> listed = new TreeSet<>();
        runtime.path("components").forEach(m -> listed.add(m.path("name").asString()));
        assertThat(listed).as("the runtime's modules").isEqualTo(modules);
    }

    @Test
    void jarSbomListsEveryJarOfLib() {
        JsonNode bom = read(TARGET.resolve("sbom/lbk8s.cdx.json"));
        assertValidCycloneDx(bom);
        assertThat(bom.path("metadata").path("component").path("name").asString())
                .isEqualTo("lbk8s");
        assertThat(jarsMissingFrom(bom, dist.resolve("lib"))).isEmpty();
    }

    @Test
    void aJarMissingFromTheSbomIsFound() {
        // the check above is not vacuous: take one library out and it names that jar
        ObjectNode bom = (ObjectNode) read(TARGET.resolve("sbom/lbk8s.cdx.json"));
        ArrayNode components = (ArrayNode) bom.get("components");
        JsonNode removed = components.remove(components.size() - 1);
        assertThat(jarsMissingFrom(bom, dist.resolve("lib")))
                .containsExactly(removed.path("name").asString() + "-"
                        + removed.path("version").asString() + ".jar");
    }

    @Test
    void distributionSbomIsInTheTreeAndListsJarsAndRuntime() throws IOException {
        Path inTree = dist.resolve("sbom.cdx.json");
        Path beside = TARGET.resolve("lbk8s-" + VERSION + "-linux-x64.cdx.json");
        assertThat(Files.readString(inTree)).isEqualTo(Files.readString(beside));
        JsonNode bom = read(inTree);
        assertValidCycloneDx(bom);
        assertThat(bom.path("metadata").path("component").path("name").asString())
                .isEqualTo("lbk8s-linux-x64");
        assertThat(jarsMissingFrom(bom, dist.resolve("lib"))).isEmpty();
        assertListsJarAndRuntime(bom, dist);
        List<String> names = new ArrayList<>();
        bom.path("components").forEach(c -> names.add(c.path("name").asString()));
        assertThat(names).doesNotContain("libc6");
    }

    @Test
    void imageSbomIsInTheImageAndListsJarsRuntimeAndGlibc() throws IOException {
        Path inImage = image.resolve("opt/lbk8s/sbom.cdx.json");
        Path beside = TARGET.resolve("lbk8s-image.cdx.json");
        assertThat(Files.readString(inImage)).isEqualTo(Files.readString(beside));
        JsonNode bom = read(inImage);
        assertValidCycloneDx(bom);
        JsonNode root = bom.path("metadata").path("component");
        assertThat(root.path("type").asString()).isEqualTo("container");
        assertThat(root.path("name").asString() + ":" + root.path("version").asString())
                .isEqualTo(System.getProperty("lbk8s.image"));
        assertThat(jarsMissingFrom(bom, image.resolve("opt/lbk8s/lib"))).isEmpty();
        assertListsJarAndRuntime(bom, image.resolve("opt/lbk8s"));

        // glibc's own banner: "GNU C Library (Debian GLIBC 2.36-9+deb12u14) stable release version 2.36."
        String banner = Cmd.run(
                        RUN,
                        List.of(image.resolve("lib/x86_64-linux-gnu/libc.so.6").toString()))
                .ok()
                .out();
        Matcher debian = Pattern.compile("\\((\\w+) GLIBC ([^)]+)\\)").matcher(banner);
        assertThat(debian.find()).as(banner).isTrue();
        JsonNode libc6 = ComposeSbomTest.component(bom, "libc6");
        assertThat(libc6.path("version").asString()).isEqualTo(debian.group(2));
        assertThat(libc6.path("purl").asString())
                .startsWith("pkg:deb/" + debian.group(1).toLowerCase() + "/libc6@");
    }
}
