package io.lbk8s.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class HealthServerTest {

    @Test
    void readyzTellsTheTruthAndMetricsAreServed() throws Exception {
        var registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        Counter.builder("lbk8s.test.things").register(registry).increment();
        var readiness = new AtomicReference<>(new HealthServer.Readiness(false, "informers not synced"));
        try (var server = new HealthServer(
                        new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), registry, readiness::get);
                var http = HttpClient.newHttpClient()) {
            String base = "http://127.0.0.1:" + server.port();
            HttpResponse<String> notReady = get(http, base + "/readyz");
            assertThat(notReady.statusCode()).isEqualTo(503);
            assertThat(notReady.body()).isEqualTo("informers not synced\n");

            readiness.set(new HealthServer.Readiness(true, "ready: configuration valid"));
            assertThat(get(http, base + "/readyz").statusCode()).isEqualTo(200);
            assertThat(get(http, base + "/healthz").body()).isEqualTo("ok\n");
            HttpResponse<String> metrics = get(http, base + "/metrics");
            assertThat(metrics.statusCode()).isEqualTo(200);
            assertThat(metrics.body()).contains("lbk8s_test_things_total 1.0");
        }
    }

    private static HttpResponse<String> get(HttpClient http, String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
