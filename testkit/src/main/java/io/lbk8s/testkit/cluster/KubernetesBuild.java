package io.lbk8s.testkit.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What {@code bin/kubernetes build} made: the Kubernetes, etcd and node runtime binaries in {@code bin/}, the CNI
 * plugins in {@code cni/}, the pause and backend image archives in {@code images/} and their versions in
 * {@code versions}. Found through the environment variable {@code LBK8S_KUBERNETES} or the system property
 * {@code lbk8s.kubernetes} (./test sets both from {@code bin/kubernetes build}).
 */
public record KubernetesBuild(Path home) {

    public static final String ENVIRONMENT = "LBK8S_KUBERNETES";
    public static final String PROPERTY = "lbk8s.kubernetes";

    static final String[] BINARIES = {
        "etcd",
        "kube-apiserver",
        "kube-controller-manager",
        "kube-scheduler",
        "kubelet",
        "kube-proxy",
        "kubectl",
        "containerd",
        "containerd-shim-runc-v2",
        "ctr",
        "runc",
        "crictl"
    };

    /** The build named by the environment or the system property, if it is complete. */
    public static Optional<KubernetesBuild> find() {
        return location()
                .map(Path::of)
                .map(KubernetesBuild::new)
                .filter(b -> b.missing().isEmpty());
    }

    /** Why no complete build can be used here; empty when {@link #find()} finds one. */
    public static Optional<String> missingPrerequisites() {
        Optional<String> location = location();
        if (location.isEmpty()) {
            return Optional.of("no Kubernetes build: run bin/kubernetes build and set " + ENVIRONMENT + " (or -D"
                    + PROPERTY + ") to the directory it prints");
        }
        return new KubernetesBuild(Path.of(location.get())).missing();
    }

    private static Optional<String> location() {
        String value = System.getProperty(PROPERTY);
        if (value == null || value.isBlank()) {
            value = System.getenv(ENVIRONMENT);
        }
        return Optional.ofNullable(value).filter(v -> !v.isBlank());
    }

    Optional<String> missing() {
        for (String binary : BINARIES) {
            if (!Files.isExecutable(bin(binary))) {
                return Optional.of(bin(binary) + " is missing: run bin/kubernetes build");
            }
        }
        for (Path file : new Path[] {cni().resolve("bridge"), pauseImage(), backendImage()}) {
            if (!Files.exists(file)) {
                return Optional.of(file + " is missing: run bin/kubernetes build");
            }
        }
        return Optional.empty();
    }

    public Path bin(String name) {
        return home.resolve("bin").resolve(name);
    }

    public Path binDirectory() {
        return home.resolve("bin");
    }

    public Path cni() {
        return home.resolve("cni");
    }

    public Path pauseImage() {
        return home.resolve("images/pause.oci.tar");
    }

    /** busybox's httpd answering {@code GET /} with "POD_NAME on NODE_NAME"; image {@link #backendImageName()}. */
    public Path backendImage() {
        return home.resolve("images/backend.oci.tar");
    }

    public String pauseImageName() {
        return versions().get("pause-image");
    }

    public String backendImageName() {
        return versions().get("backend-image");
    }

    /** Component → version, as {@code bin/kubernetes versions} prints them. */
    public Map<String, String> versions() {
        try {
            Map<String, String> versions = new LinkedHashMap<>();
            for (String line : Files.readAllLines(home.resolve("versions"))) {
                String[] words = line.strip().split(" ", 2);
                if (words.length == 2) {
                    versions.put(words[0], words[1]);
                }
            }
            return versions;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
