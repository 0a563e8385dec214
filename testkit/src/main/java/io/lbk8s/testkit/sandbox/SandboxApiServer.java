package io.lbk8s.testkit.sandbox;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.lbk8s.testkit.cluster.KubernetesBuild;
import io.lbk8s.testkit.cluster.RealApiServer;
import io.lbk8s.testkit.net.TestNetwork;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The sandbox's API server, on the host's address of the test network: the real kube-apiserver when
 * {@code bin/kubernetes build} made one (as {@code ./test} does), else the test API server. The demo's default runs on
 * the latter, since it must start on a machine without a Kubernetes build.
 */
sealed interface SandboxApiServer extends AutoCloseable {

    Set<String> WRITES = Set.of("create", "update", "patch", "delete", "deletecollection");

    static SandboxApiServer start(TestNetwork network, Path logs) throws IOException {
        Path kubeconfig = logs.resolve("kubeconfig");
        if (KubernetesBuild.find().isPresent()) {
            RealApiServer server = RealApiServer.start(network.hostAddress().getHostAddress());
            try {
                server.applyCrds(Sandbox.REPO.resolve("deploy/crds"));
                Files.copy(server.kubeconfig(), kubeconfig, StandardCopyOption.REPLACE_EXISTING);
                return new Real(server, logs);
            } catch (IOException | RuntimeException e) {
                server.close();
                throw e;
            }
        }
        return Imitation.start(network, logs, kubeconfig);
    }

    /** A client as the administrator. */
    KubernetesClient newClient();

    /** Which server it is, for people: "kube-apiserver" or "the lbk8s test API server". */
    String description();

    /** Write requests served since it started. */
    long writes();

    /** Returns once Pods can be made in the namespace just created. */
    void awaitPodsAdmitted(KubernetesClient client, String namespace);

    @Override
    void close();

    /** etcd, kube-apiserver and the few controllers of {@link RealApiServer}. */
    record Real(RealApiServer server, Path logs) implements SandboxApiServer {
        @Override
        public KubernetesClient newClient() {
            return server.newClient();
        }

        @Override
        public String description() {
            return "kube-apiserver, built here by bin/kubernetes build";
        }

        @Override
        public long writes() {
            return server.requests().stream()
                    .filter(r -> WRITES.contains(r.verb()))
                    .count();
        }

        /** The ServiceAccount admission refuses Pods until kube-controller-manager made the namespace's default. */
        @Override
        public void awaitPodsAdmitted(KubernetesClient client, String namespace) {
            client.serviceAccounts()
                    .inNamespace(namespace)
                    .withName("default")
                    .waitUntilCondition(java.util.Objects::nonNull, 30, TimeUnit.SECONDS);
        }

        /** Its logs stay with the sandbox's. */
        @Override
        public void close() {
            try {
                server.copyLogsTo(logs);
            } catch (UncheckedIOException e) {
                // the sandbox's own logs matter more than these: close anyway
            }
            server.close();
        }
    }

    /** {@code testkit/bin/test-api-server}, a process that stops when this JVM does. */
    record Imitation(Process process, Path kubeconfig, Path requestLog) implements SandboxApiServer {
        static Imitation start(TestNetwork network, Path logs, Path kubeconfig) throws IOException {
            Path requestLog = logs.resolve("api-requests.log");
            Process process = new ProcessBuilder(
                            Sandbox.REPO.resolve("testkit/bin/test-api-server").toString(),
                            "--address",
                            network.hostAddress().getHostAddress(),
                            "--port",
                            "0",
                            "--kubeconfig",
                            kubeconfig.toString(),
                            "--crds",
                            Sandbox.REPO.resolve("deploy/crds").toString(),
                            "--request-log",
                            requestLog.toString())
                    .redirectError(logs.resolve("api-server.log").toFile())
                    .start();
            Imitation started = new Imitation(process, kubeconfig, requestLog);
            try {
                started.awaitReady();
                return started;
            } catch (IOException | RuntimeException e) {
                started.close();
                throw e;
            }
        }

        private void awaitReady() throws IOException {
            var out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            String line;
            while ((line = out.readLine()) != null) {
                if (line.startsWith("READY ")) {
                    return;
                }
                if (System.nanoTime() > deadline) {
                    break;
                }
            }
            throw new IllegalStateException("the test API server did not print READY (exit "
                    + (process.isAlive() ? "none" : process.exitValue()) + ")");
        }

        @Override
        public KubernetesClient newClient() {
            try {
                return new KubernetesClientBuilder()
                        .withConfig(Config.fromKubeconfig(null, Files.readString(kubeconfig), kubeconfig.toString()))
                        .build();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public String description() {
            return "the lbk8s test API server";
        }

        @Override
        public long writes() {
            try (var lines = Files.lines(requestLog)) {
                return lines.filter(l -> l.startsWith("POST ")
                                || l.startsWith("PUT ")
                                || l.startsWith("PATCH ")
                                || l.startsWith("DELETE "))
                        .count();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void awaitPodsAdmitted(KubernetesClient client, String namespace) {}

        @Override
        public void close() {
            Sandbox.stop(process);
        }
    }
}
