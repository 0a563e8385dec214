package io.lbk8s.testkit;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.lbk8s.testkit.validation.GoType;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/** The fabric8 model class, hence the Go struct, of each built-in group/version/kind fabric8 knows. */
final class BuiltInModels {

    private static final Map<String, GoType.Struct> BY_GVK = load();

    private BuiltInModels() {}

    static Optional<GoType.Struct> struct(String group, String version, String kind) {
        return Optional.ofNullable(BY_GVK.get(group + "/" + version + "/" + kind));
    }

    private static Map<String, GoType.Struct> load() {
        Map<String, GoType.Struct> out = new HashMap<>();
        ClassLoader loader = BuiltInModels.class.getClassLoader();
        try {
            Enumeration<URL> lists =
                    loader.getResources("META-INF/services/" + "io.fabric8.kubernetes.api.model.KubernetesResource");
            while (lists.hasMoreElements()) {
                try (BufferedReader in = new BufferedReader(
                        new InputStreamReader(lists.nextElement().openStream(), StandardCharsets.UTF_8))) {
                    in.lines()
                            .map(String::trim)
                            .filter(l -> !l.isEmpty() && !l.startsWith("#"))
                            .forEach(name -> {
                                try {
                                    Class<?> c = Class.forName(name, false, loader);
                                    if (HasMetadata.class.isAssignableFrom(c)) {
                                        @SuppressWarnings("unchecked")
                                        Class<? extends HasMetadata> r = (Class<? extends HasMetadata>) c;
                                        String group = HasMetadata.getGroup(r);
                                        out.putIfAbsent(
                                                (group == null ? "" : group) + "/" + HasMetadata.getVersion(r) + "/"
                                                        + HasMetadata.getKind(r),
                                                new GoType.Struct(c));
                                    }
                                } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
                                    // a model class this classpath cannot load is a kind we do not check
                                }
                            });
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }
}
