package io.lbk8s.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lbk8s.testkit.cluster.FreshApiServer;
import io.lbk8s.testkit.sandbox.Sandbox;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A speaker started without CAP_NET_RAW says so on /readyz instead of pretending to be ready. */
class SpeakerWithoutRawSocketsIT {

    @Test
    void readyzNamesTheMissingCapability() throws Exception {
        assumeTrue(
                Files.isExecutable(Path.of("/usr/bin/setpriv")) && "root".equals(System.getProperty("user.name")),
                "needs root and setpriv to drop CAP_NET_RAW");
        try (FreshApiServer api = FreshApiServer.start()) {
            Path kubeconfig = api.writeKubeconfig(Files.createTempFile("lbk8s-kubeconfig", ".yaml"));
            int port;
            try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                port = free.getLocalPort();
            }
            Path log = Files.createTempFile("speaker-no-raw", ".log");
            Process speaker = new ProcessBuilder(
                            "/usr/bin/setpriv",
                            "--bounding-set",
                            "-net_raw",
                            "--inh-caps",
                            "-net_raw",
                            Sandbox.REPO.resolve("bin/lbk8s").toString(),
                            "speaker",
                            "--node",
                            "node-1",
                            "--kubeconfig",
                            kubeconfig.toString(),
                            "--metrics-address",
                            "127.0.0.1",
                            "--metrics-port",
                            String.valueOf(port))
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
            try {
                HttpClient http = HttpClient.newHttpClient();
                HttpResponse<String> response = null;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (System.nanoTime() < deadline && speaker.isAlive()) {
                    try {
                        response = http.send(
                                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz"))
                                        .timeout(Duration.ofSeconds(2))
                                        .build(),
                                HttpResponse.BodyHandlers.ofString());
                        if (response.body().contains("CAP_NET_RAW") || response.statusCode() == 200) {
                            break;
                        }
                    } catch (java.io.IOException notYet) {
                        // still starting
                    }
                    Thread.sleep(100);
                }
                assertThat(response)
                        .as("speaker log:\n%s", Files.readString(log))
                        .isNotNull();
                assertThat(response.statusCode()).isEqualTo(503);
                assertThat(response.body()).contains("cannot answer ARP/NDP").contains("the speaker needs CAP_NET_RAW");
                assertThat(Files.readString(log)).contains("cannot open raw sockets");
            } finally {
                speaker.destroy();
                speaker.waitFor(10, TimeUnit.SECONDS);
                speaker.destroyForcibly();
                Files.deleteIfExists(kubeconfig);
                Files.deleteIfExists(log);
            }
        }
    }
}
