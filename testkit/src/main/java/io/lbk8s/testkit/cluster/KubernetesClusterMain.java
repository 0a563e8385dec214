package io.lbk8s.testkit.cluster;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Starts a cluster and keeps it until stdin ends or a signal comes:
 * {@code KubernetesClusterMain [--nodes N] [--logs DIR] [--image ARCHIVE]...}. Prints {@code READY <kubeconfig>}.
 */
public final class KubernetesClusterMain {

    private KubernetesClusterMain() {}

    public static void main(String[] args) throws Exception {
        int nodes = 3;
        Path logs = Path.of("target", "cluster-logs");
        List<Path> images = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--nodes" -> nodes = Integer.parseInt(args[++i]);
                case "--logs" -> logs = Path.of(args[++i]);
                case "--image" -> images.add(Path.of(args[++i]));
                default -> {
                    System.err.println("usage: KubernetesClusterMain [--nodes N] [--logs DIR] [--image ARCHIVE]...");
                    System.exit(2);
                }
            }
        }
        try (KubernetesCluster cluster = KubernetesCluster.start(nodes, logs, images)) {
            System.out.println(
                    "READY " + cluster.kubeconfig() + " " + cluster.network().id());
            System.out.flush();
            while (System.in.read() >= 0) {
                // until end of input; a signal runs the shutdown hook
            }
        }
    }
}
