package io.lbk8s.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TestApiServerMainTest {

    @Test
    void standaloneServerPrintsReadyAndServesAnotherProcess(@TempDir Path dir) throws Exception {
        Path kubeconfig = dir.resolve("kubeconfig");
        Path crds = Path.of(TestSupport.class.getResource("/crds").toURI());
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(List.of(
                        java,
                        "-XX:TieredStopAtLevel=1",
                        "-Djava.io.tmpdir=" + dir,
                        "-cp",
                        System.getProperty("java.class.path"),
                        TestApiServerMain.class.getName(),
                        "--address",
                        "127.0.0.1",
                        "--port",
                        "0",
                        "--kubeconfig",
                        kubeconfig.toString(),
                        "--crds",
                        crds.toString()))
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            String ready = CompletableFuture.supplyAsync(() -> {
                        try {
                            return out.readLine();
                        } catch (java.io.IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    })
                    .get(30, TimeUnit.SECONDS);
            assertThat(ready).matches("READY http://127\\.0\\.0\\.1:\\d+");
            String url = ready.substring("READY ".length());

            Config config = Config.fromKubeconfig(Files.readString(kubeconfig));
            assertThat(config.getMasterUrl()).startsWith(url);
            try (KubernetesClient client =
                    new KubernetesClientBuilder().withConfig(config).build()) {
                client.services().resource(TestSupport.loadBalancer("remote")).create();
                assertThat(client.services().withName("remote").get().getSpec().getClusterIP())
                        .isNotBlank();
                assertThat(client.apiextensions()
                                .v1()
                                .customResourceDefinitions()
                                .withName("ipaddresspools.metallb.io")
                                .get())
                        .isNotNull();
            }

            p.getOutputStream().close(); // stdin closed: the server stops
            assertThat(p.waitFor(15, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).isZero();
            try (var files = Files.list(dir)) {
                assertThat(files.map(f -> f.getFileName().toString())).containsExactly("kubeconfig");
            }
        } finally {
            p.destroyForcibly();
        }
    }
}
