package io.lbk8s.health;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * Serves {@code /metrics} (Prometheus text), {@code /healthz} (the process is alive) and {@code /readyz} (the
 * component says it is ready; the body tells why not).
 */
public final class HealthServer implements AutoCloseable {

    /** Readiness with its reason, for the body of {@code /readyz}. */
    public record Readiness(boolean ready, String reason) {}

    private final HttpServer server;

    public HealthServer(InetSocketAddress address, PrometheusMeterRegistry registry, Supplier<Readiness> readiness)
            throws IOException {
        server = HttpServer.create(address, 16);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext(
                "/metrics",
                exchange -> reply(exchange, 200, "text/plain; version=0.0.4; charset=utf-8", registry.scrape()));
        server.createContext("/healthz", exchange -> reply(exchange, 200, "text/plain", "ok\n"));
        server.createContext("/readyz", exchange -> {
            Readiness now = readiness.get();
            reply(exchange, now.ready() ? 200 : 503, "text/plain", now.reason() + "\n");
        });
        server.start();
    }

    public int port() {
        return server.getAddress().getPort();
    }

    private static void reply(HttpExchange exchange, int status, String contentType, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", contentType);
        exchange.sendResponseHeaders(status, bytes.length);
        try (var out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
