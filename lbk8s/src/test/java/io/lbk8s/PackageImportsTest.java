package io.lbk8s;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * How the packages of lbk8s may import each other (docs/decisions/0001): without a cycle, no role importing another,
 * and the pure decisions without Kubernetes types. Read from the sources' import lines.
 */
class PackageImportsTest {
    private static final Path SOURCES = Path.of("src/main/java/io/lbk8s");
    private static final Set<String> ROLES = Set.of("controller", "speaker", "install");
    private static final Set<String> PURE = Set.of("address", "config", "ipam", "service");
    private static final Pattern PACKAGE = Pattern.compile("(?m)^package io\\.lbk8s\\.([\\w.]+);");
    private static final Pattern IMPORT = Pattern.compile("(?m)^import (?:static )?([\\w.]+);");

    /** Per package, the imported names of all its files. */
    private static final Map<String, Set<String>> imports = new TreeMap<>();

    @BeforeAll
    static void readSources() throws IOException {
        try (Stream<Path> files = Files.walk(SOURCES)) {
            files.filter(f -> f.toString().endsWith(".java")).forEach(PackageImportsTest::read);
        }
        assertThat(imports).as("packages read from " + SOURCES.toAbsolutePath()).containsKeys("controller", "service");
    }

    private static void read(Path file) {
        try {
            String source = Files.readString(file);
            Matcher pkg = PACKAGE.matcher(source);
            assertThat(pkg.find()).as(file + " has a package line").isTrue();
            Set<String> names = imports.computeIfAbsent(pkg.group(1), p -> new TreeSet<>());
            IMPORT.matcher(source).results().map(m -> m.group(1)).forEach(names::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The lbk8s packages {@code pkg} imports, other than itself. */
    private static Set<String> dependencies(String pkg) {
        Set<String> result = new TreeSet<>();
        for (String name : imports.get(pkg)) {
            if (name.startsWith("io.lbk8s.")) {
                String imported = packageOf(name.substring("io.lbk8s.".length()));
                if (!imported.equals(pkg)) {
                    result.add(imported);
                }
            }
        }
        return result;
    }

    /** {@code speaker.Speaker.Settings} → {@code speaker}: the lower-case parts before the first class name. */
    private static String packageOf(String name) {
        List<String> parts = new ArrayList<>();
        for (String part : name.split("\\.")) {
            if (Character.isUpperCase(part.charAt(0))) {
                break;
            }
            parts.add(part);
        }
        return String.join(".", parts);
    }

    @Test
    void noPackageReachesItselfThroughItsImports() {
        Map<String, Set<String>> cycles = new TreeMap<>();
        for (String pkg : imports.keySet()) {
            Set<String> reached = new TreeSet<>();
            List<String> next = new ArrayList<>(dependencies(pkg));
            while (!next.isEmpty()) {
                String p = next.removeLast();
                if (imports.containsKey(p) && reached.add(p)) {
                    next.addAll(dependencies(p));
                }
            }
            if (reached.contains(pkg)) {
                cycles.put(pkg, dependencies(pkg));
            }
        }
        assertThat(cycles).as("packages on a cycle, with what each imports").isEmpty();
    }

    @Test
    void noRoleImportsAnotherRole() {
        Map<String, Set<String>> crossings = new TreeMap<>();
        for (String pkg : imports.keySet()) {
            String role = pkg.split("\\.")[0];
            if (ROLES.contains(role)) {
                dependencies(pkg).stream()
                        .map(d -> d.split("\\.")[0])
                        .filter(d -> ROLES.contains(d) && !d.equals(role))
                        .forEach(d -> crossings
                                .computeIfAbsent(pkg, p -> new TreeSet<>())
                                .add(d));
            }
        }
        assertThat(crossings)
                .as("roles importing another role (what they share belongs below both)")
                .isEmpty();
    }

    @Test
    void pureDecisionsImportNoKubernetesTypes() {
        Map<String, List<String>> kubernetes = new TreeMap<>();
        for (String pkg : PURE) {
            List<String> found = imports.getOrDefault(pkg, Set.of()).stream()
                    .filter(n -> n.startsWith("io.fabric8."))
                    .toList();
            if (!found.isEmpty()) {
                kubernetes.put(pkg, found);
            }
        }
        assertThat(kubernetes).as("pure packages importing fabric8 types").isEmpty();
    }
}
