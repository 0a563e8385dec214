import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The CycloneDX SBOM of the distribution or of the image, composed from the jar's (cyclonedx-maven-plugin's
 * lbk8s.cdx.json, which lists lbk8s and the jars of lib/): the jar becomes one component among its libraries, and
 * what the Maven plugin cannot see is added: the jlinked Java runtime and, in the image, glibc from Debian's libc6.
 * Run by assemble with the source launcher and Jackson from lib/:
 *
 * <pre>
 * java -cp 'lib/*' ComposeSbom.java --jar-bom F --jdk-release F --runtime-release F --version V --out F
 *      (--distribution NAME | --image REPOSITORY:TAG --libc6-status F --distro debian-12)
 * </pre>
 *
 * jdk-release: the release file of the JDK the runtime was linked from (jlink keeps only the version and the module
 * list in the runtime's own). libc6-status: libc6's dpkg control fields (Package, Version, Architecture).
 */
public class ComposeSbom {
    static final JsonMapper JSON =
            JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

    public static void main(String[] args) throws IOException {
        Map<String, String> options = options(args);
        ObjectNode bom = (ObjectNode) JSON.readTree(Files.readString(Path.of(required(options, "jar-bom"))));
        if (!"CycloneDX".equals(bom.path("bomFormat").asString())
                || !bom.path("metadata").path("component").isObject()) {
            fail(options.get("jar-bom") + " is not a CycloneDX BOM with a metadata.component (the jar)");
        }
        Properties jdk = release(Path.of(required(options, "jdk-release")));
        Properties linked = release(Path.of(required(options, "runtime-release")));
        String version = required(options, "version");

        ObjectNode root = root(options, version);
        ObjectNode jar = (ObjectNode) bom.path("metadata").path("component");
        ObjectNode runtime = runtime(jdk, linked);
        List<ObjectNode> added = new ArrayList<>(List.of(jar.deepCopy(), runtime));
        ArrayNode dependencies = bom.withArray("dependencies");
        dependencies.insert(0, dependency(root, jar, runtime));
        if (options.containsKey("image")) {
            ObjectNode libc6 = libc6(release(Path.of(required(options, "libc6-status"))), required(options, "distro"));
            added.add(libc6);
            dependencies.add(dependency(runtime, libc6)); // the JVM's native code is linked against glibc
            dependencies.add(dependency(libc6));
        } else {
            dependencies.add(dependency(runtime));
        }
        bom.set("components", JSON.createArrayNode().addAll(added).addAll(bom.withArray("components")));
        ((ObjectNode) bom.get("metadata")).set("component", root);
        bom.put("serialNumber", "urn:uuid:" + UUID.randomUUID());
        Files.writeString(Path.of(required(options, "out")), JSON.writeValueAsString(bom) + "\n");
    }

    /** What the SBOM describes: the distribution (an application) or the image (a container). */
    static ObjectNode root(Map<String, String> options, String version) {
        if (options.containsKey("distribution")) {
            String name = options.get("distribution");
            return component("application", "pkg:generic/io.lbk8s/" + name + "@" + purlPart(version))
                    .put("group", "io.lbk8s")
                    .put("name", name)
                    .put("version", version);
        }
        if (options.containsKey("image")) {
            String image = options.get("image");
            int colon = image.lastIndexOf(':');
            if (colon < image.lastIndexOf('/') + 1) {
                fail("--image wants REPOSITORY:TAG, not " + image);
            }
            String repository = image.substring(0, colon);
            String tag = image.substring(colon + 1);
            // no version in the purl: it would be the image's digest, unknown while the SBOM is put into the image
            String purl = "pkg:oci/" + repository.substring(repository.lastIndexOf('/') + 1) + "?repository_url="
                    + repository + "&tag=" + tag;
            return component("container", purl).put("name", repository).put("version", tag);
        }
        throw fail("--distribution NAME or --image REPOSITORY:TAG is needed");
    }

    static ObjectNode dependency(JsonNode component, JsonNode... dependsOn) {
        ObjectNode dependency = JSON.createObjectNode().put("ref", ref(component));
        ArrayNode refs = dependency.putArray("dependsOn");
        for (JsonNode needed : dependsOn) {
            refs.add(ref(needed));
        }
        return dependency;
    }

    /** The jlinked runtime: Temurin (or whichever JDK), its version, and its modules as subcomponents. */
    static ObjectNode runtime(Properties jdk, Properties linked) {
        String implementor = jdk.getProperty("IMPLEMENTOR", "unknown");
        // SEMANTIC_VERSION (25.0.3+9) where the JDK has it, else JAVA_RUNTIME_VERSION less the -LTS
        String version = jdk.getProperty(
                "SEMANTIC_VERSION", jdk.getProperty("JAVA_RUNTIME_VERSION", "").replaceFirst("-LTS$", ""));
        String javaVersion = linked.getProperty("JAVA_VERSION", "");
        if (version.isEmpty() || !version.startsWith(javaVersion)) {
            fail("the JDK's release (version " + version + ") is not the one the runtime was linked from ("
                    + javaVersion + ")");
        }
        String name = implementor.equals("Eclipse Adoptium")
                ? "temurin"
                : implementor.toLowerCase().replace(' ', '-');
        String purl = "pkg:generic/" + name + "@" + purlPart(version);
        ObjectNode runtime = component("platform", purl)
                .put("publisher", implementor)
                .put("name", name)
                .put("version", version)
                .put(
                        "description",
                        "Java runtime linked by jlink from " + jdk.getProperty("IMPLEMENTOR_VERSION", name) + " ("
                                + jdk.getProperty("JAVA_RUNTIME_VERSION", version) + "); its modules are listed");
        runtime.putArray("licenses").addObject().put("expression", "GPL-2.0-only WITH Classpath-exception-2.0");
        ArrayNode modules = runtime.putArray("components");
        for (String module : linked.getProperty("MODULES", "").split(" ")) {
            if (!module.isBlank()) {
                modules.addObject()
                        .put("type", "library")
                        .put("bom-ref", purl + "#" + module)
                        .put("name", module)
                        .put("version", version);
            }
        }
        if (modules.isEmpty()) {
            fail("the runtime's release file lists no MODULES");
        }
        return runtime;
    }

    /**
     * glibc as Debian (or Ubuntu) packages it, with the purl spec's deb form, which names the distribution release
     * whose advisories apply. distro: ID-VERSION_ID of /etc/os-release where the package came from (debian-12).
     */
    static ObjectNode libc6(Properties control, String distro) {
        String version = control.getProperty("Version", "");
        String arch = control.getProperty("Architecture", "");
        if (!"libc6".equals(control.getProperty("Package")) || version.isEmpty() || arch.isEmpty()) {
            fail("libc6's control fields lack Package: libc6, Version or Architecture");
        }
        if (!distro.matches("[a-z]+-[0-9.]+")) {
            fail("--distro wants ID-VERSION_ID of /etc/os-release (debian-12), not " + distro);
        }
        String vendor = distro.substring(0, distro.indexOf('-'));
        return component(
                        "library",
                        "pkg:deb/" + vendor + "/libc6@" + purlPart(version) + "?arch=" + arch + "&distro=" + distro)
                .put("publisher", control.getProperty("Maintainer", vendor))
                .put("name", "libc6")
                .put("version", version)
                .put(
                        "description",
                        "GNU C Library: shared libraries and the dynamic loader (" + vendor + "'s libc6 package)");
    }

    static ObjectNode component(String type, String purl) {
        return JSON.createObjectNode().put("type", type).put("bom-ref", purl).put("purl", purl);
    }

    static String ref(JsonNode component) {
        return component.path("bom-ref").asString();
    }

    /** purl versions percent-encode '+' (Temurin's 25.0.3+9, Debian's 2.36-9+deb12u14). */
    static String purlPart(String s) {
        return s.replace("%", "%25").replace("+", "%2B");
    }

    /** KEY="value" (release files) and Key: value (dpkg control) lines alike. */
    static Properties release(Path file) throws IOException {
        var properties = new Properties();
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw fail("cannot read " + file + ": " + e.getMessage());
        }
        properties.load(new StringReader(text));
        properties.replaceAll((k, v) -> v.toString().replaceAll("^\"|\"$", ""));
        return properties;
    }

    static final Set<String> OPTIONS = Set.of(
            "jar-bom",
            "jdk-release",
            "runtime-release",
            "version",
            "out",
            "distribution",
            "image",
            "libc6-status",
            "distro");

    static Map<String, String> options(String[] args) {
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i < args.length; i += 2) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                fail("usage: see ComposeSbom.java's comment (at "
                        + Arrays.toString(List.of(args).subList(i, args.length).toArray()) + ")");
            }
            if (!OPTIONS.contains(args[i].substring(2))) {
                fail("unknown option " + args[i] + " (known: --" + String.join(", --", new TreeSet<>(OPTIONS)) + ")");
            }
            options.put(args[i].substring(2), args[i + 1]);
        }
        return options;
    }

    static String required(Map<String, String> options, String name) {
        String value = options.get(name);
        if (value == null || value.isBlank()) {
            fail("--" + name + " is needed");
        }
        return value;
    }

    static IllegalStateException fail(String message) {
        System.err.println("ComposeSbom: " + message);
        System.exit(1);
        return new IllegalStateException(message);
    }
}
