package io.lbk8s.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * src/build/ComposeSbom.java, compiled and run as assemble runs it, on a jar BOM, release files and libc6 control
 * fields made here: what the distribution's and the image's SBOMs get from each, and the inputs it refuses.
 */
class ComposeSbomTest {
    static final Duration RUN = Duration.ofSeconds(60);
    static final JsonMapper JSON = new JsonMapper();
    static final String JAR_BOM = """
            {"bomFormat": "CycloneDX", "specVersion": "1.6", "version": 1,
             "metadata": {"component": {"type": "application", "bom-ref": "pkg:maven/io.lbk8s/lbk8s@1.2.3?type=jar",
                "group": "io.lbk8s", "name": "lbk8s", "version": "1.2.3", "purl": "pkg:maven/io.lbk8s/lbk8s@1.2.3?type=jar"}},
             "components": [{"type": "library", "bom-ref": "pkg:maven/info.picocli/picocli@4.7.7?type=jar",
                "group": "info.picocli", "name": "picocli", "version": "4.7.7",
                "purl": "pkg:maven/info.picocli/picocli@4.7.7?type=jar"}],
             "dependencies": [{"ref": "pkg:maven/io.lbk8s/lbk8s@1.2.3?type=jar",
                "dependsOn": ["pkg:maven/info.picocli/picocli@4.7.7?type=jar"]},
                {"ref": "pkg:maven/info.picocli/picocli@4.7.7?type=jar", "dependsOn": []}]}
            """;
    static final String JDK_RELEASE = """
            IMPLEMENTOR="Eclipse Adoptium"
            IMPLEMENTOR_VERSION="Temurin-25.0.3+9"
            JAVA_RUNTIME_VERSION="25.0.3+9-LTS"
            JAVA_VERSION="25.0.3"
            SEMANTIC_VERSION="25.0.3+9"
            """;
    // what jlink writes: the version and the modules only
    static final String RUNTIME_RELEASE = """
            JAVA_VERSION="25.0.3"
            MODULES="java.base java.logging java.net.http"
            """;
    static final String LIBC6_CONTROL = """
            Package: libc6
            Source: glibc
            Version: 2.36-9+deb12u14
            Architecture: amd64
            Maintainer: GNU Libc Maintainers <debian-glibc@lists.debian.org>
            Description: GNU C Library: Shared libraries
             Contains the standard libraries that are used by nearly all programs on
             the system.
            """;

    @TempDir
    static Path temp;

    static Path classes;

    @BeforeAll
    static void compile() throws IOException {
        classes = Files.createDirectories(temp.resolve("classes"));
        Path source = Path.of(System.getProperty("basedir", "."), "src", "build", "ComposeSbom.java");
        int exit = ToolProvider.getSystemJavaCompiler()
                .run(
                        null,
                        null,
                        null,
                        "-cp",
                        System.getProperty("java.class.path"),
                        "-d",
                        classes.toString(),
                        source.toString());
        assertThat(exit).as("javac %s", source).isZero();
    }

    /** Writes the inputs (a null content leaves the file out) and runs ComposeSbom with them and these options. */
    static Cmd compose(String jarBom, String jdkRelease, String runtimeRelease, String... options) throws IOException {
        Path dir = Files.createTempDirectory(temp, "case");
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                classes + java.io.File.pathSeparator + System.getProperty("java.class.path"),
                "ComposeSbom",
                "--jar-bom",
                write(dir.resolve("jar.cdx.json"), jarBom),
                "--jdk-release",
                write(dir.resolve("jdk-release"), jdkRelease),
                "--runtime-release",
                write(dir.resolve("runtime-release"), runtimeRelease),
                "--version",
                "1.2.3",
                "--libc6-status",
                write(dir.resolve("libc6"), LIBC6_CONTROL),
                "--out",
                dir.resolve("out.cdx.json").toString()));
        command.addAll(List.of(options));
        return Cmd.run(RUN, command);
    }

    static String write(Path file, String content) throws IOException {
        if (content != null) {
            Files.writeString(file, content);
        }
        return file.toString();
    }

    static JsonNode output(Cmd cmd) throws IOException {
        String out = cmd.command().get(cmd.command().indexOf("--out") + 1);
        return JSON.readTree(Files.readString(Path.of(out)));
    }

    static JsonNode component(JsonNode bom, String name) {
        for (JsonNode component : bom.path("components")) {
            if (name.equals(component.path("name").asString())) {
                return component;
            }
        }
        throw new AssertionError("no component " + name + " in " + bom.path("components"));
    }

    static List<String> strings(JsonNode array, String field) {
        List<String> values = new ArrayList<>();
        array.forEach(node ->
                values.add(field == null ? node.asString() : node.path(field).asString()));
        return values;
    }

    static List<String> dependsOn(JsonNode bom, String ref) {
        for (JsonNode dependency : bom.path("dependencies")) {
            if (ref.equals(dependency.path("ref").asString())) {
                return strings(dependency.path("dependsOn"), null);
            }
        }
        throw new AssertionError("no dependency entry for " + ref);
    }

    @Test
    void distributionListsTheJarItsLibrariesAndTheRuntime() throws IOException {
        JsonNode bom = output(compose(JAR_BOM, JDK_RELEASE, RUNTIME_RELEASE, "--distribution", "lbk8s-linux-x64")
                .ok());

        assertThat(bom.path("bomFormat").asString()).isEqualTo("CycloneDX");
        assertThat(bom.path("serialNumber").asString()).startsWith("urn:uuid:");
        JsonNode root = bom.path("metadata").path("component");
        assertThat(root.path("type").asString()).isEqualTo("application");
        assertThat(root.path("purl").asString()).isEqualTo("pkg:generic/io.lbk8s/lbk8s-linux-x64@1.2.3");
        assertThat(strings(bom.path("components"), "name")).containsExactly("lbk8s", "temurin", "picocli");
        assertThat(component(bom, "lbk8s").path("purl").asString())
                .isEqualTo("pkg:maven/io.lbk8s/lbk8s@1.2.3?type=jar");

        JsonNode runtime = component(bom, "temurin");
        assertThat(runtime.path("type").asString()).isEqualTo("platform");
        assertThat(runtime.path("publisher").asString()).isEqualTo("Eclipse Adoptium");
        assertThat(runtime.path("version").asString()).isEqualTo("25.0.3+9");
        assertThat(runtime.path("purl").asString()).isEqualTo("pkg:generic/temurin@25.0.3%2B9");
        assertThat(strings(runtime.path("components"), "name"))
                .containsExactly("java.base", "java.logging", "java.net.http");

        assertThat(dependsOn(bom, root.path("bom-ref").asString()))
                .containsExactly("pkg:maven/io.lbk8s/lbk8s@1.2.3?type=jar", "pkg:generic/temurin@25.0.3%2B9");
        assertThat(dependsOn(bom, "pkg:maven/io.lbk8s/lbk8s@1.2.3?type=jar"))
                .as("the jar's own dependencies are kept")
                .containsExactly("pkg:maven/info.picocli/picocli@4.7.7?type=jar");
        assertThat(strings(bom.path("components"), "name")).doesNotContain("libc6");
    }

    @Test
    void imageListsGlibcToo() throws IOException {
        JsonNode bom = output(compose(
                        JAR_BOM,
                        JDK_RELEASE,
                        RUNTIME_RELEASE,
                        "--image",
                        "registry.example:5000/lbk8s:1.2.3",
                        "--distro",
                        "debian-12")
                .ok());

        JsonNode root = bom.path("metadata").path("component");
        assertThat(root.path("type").asString()).isEqualTo("container");
        assertThat(root.path("name").asString()).isEqualTo("registry.example:5000/lbk8s");
        assertThat(root.path("version").asString()).isEqualTo("1.2.3");
        assertThat(root.path("purl").asString())
                .isEqualTo("pkg:oci/lbk8s?repository_url=registry.example:5000/lbk8s&tag=1.2.3");
        JsonNode libc6 = component(bom, "libc6");
        assertThat(libc6.path("version").asString()).isEqualTo("2.36-9+deb12u14");
        assertThat(libc6.path("purl").asString())
                .isEqualTo("pkg:deb/debian/libc6@2.36-9%2Bdeb12u14?arch=amd64&distro=debian-12");
        assertThat(dependsOn(bom, "pkg:generic/temurin@25.0.3%2B9"))
                .containsExactly(libc6.path("bom-ref").asString());
    }

    @Test
    void refusesAJdkReleaseThatIsNotTheRuntimes() throws IOException {
        Cmd cmd = compose(
                JAR_BOM, JDK_RELEASE.replace("25.0.3", "25.0.2"), RUNTIME_RELEASE, "--distribution", "lbk8s-linux-x64");
        assertThat(cmd.exit()).isEqualTo(1);
        assertThat(cmd.err()).contains("is not the one the runtime was linked from");
    }

    @Test
    void refusesWhatIsNotAJarBom() throws IOException {
        Cmd cmd = compose("{\"bomFormat\": \"SPDX\"}", JDK_RELEASE, RUNTIME_RELEASE, "--distribution", "x");
        assertThat(cmd.exit()).isEqualTo(1);
        assertThat(cmd.err()).contains("is not a CycloneDX BOM with a metadata.component");
    }

    @Test
    void refusesAnImageWithoutTagOrDistro() throws IOException {
        Cmd noTag = compose(
                JAR_BOM,
                JDK_RELEASE,
                RUNTIME_RELEASE,
                "--image",
                "registry.example:5000/lbk8s",
                "--distro",
                "debian-12");
        assertThat(noTag.exit()).isEqualTo(1);
        assertThat(noTag.err()).contains("--image wants REPOSITORY:TAG");
        Cmd noDistro = compose(JAR_BOM, JDK_RELEASE, RUNTIME_RELEASE, "--image", "lbk8s:1.2.3");
        assertThat(noDistro.exit()).isEqualTo(1);
        assertThat(noDistro.err()).contains("--distro is needed");
    }

    @Test
    void refusesAnUnknownOption() throws IOException {
        Cmd cmd = compose(JAR_BOM, JDK_RELEASE, RUNTIME_RELEASE, "--distribution", "x", "--libc-status", "typo");
        assertThat(cmd.exit()).isEqualTo(1);
        assertThat(cmd.err()).contains("unknown option --libc-status").contains("--libc6-status");
    }

    @Test
    void refusesAMissingInput() throws IOException {
        Cmd cmd = compose(JAR_BOM, JDK_RELEASE, null, "--distribution", "lbk8s-linux-x64");
        assertThat(cmd.exit()).isEqualTo(1);
        assertThat(cmd.err()).contains("cannot read").contains("runtime-release");
    }
}
