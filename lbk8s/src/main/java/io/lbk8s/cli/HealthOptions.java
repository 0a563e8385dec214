package io.lbk8s.cli;

import io.lbk8s.health.HealthServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.function.Supplier;
import picocli.CommandLine.Option;

/** Where a long-running role serves /metrics, /healthz and /readyz. */
final class HealthOptions {
    @Option(
            names = "--metrics-address",
            defaultValue = "0.0.0.0",
            description = "Address for /metrics, /healthz and /readyz (default: ${DEFAULT-VALUE}).")
    String metricsAddress;

    @Option(
            names = "--metrics-port",
            defaultValue = "7472",
            description = "Port for /metrics, /healthz and /readyz (default: ${DEFAULT-VALUE}; 0 picks one).")
    int metricsPort;

    /** The server, started; a port taken or an address not this host's ends the command with that sentence. */
    HealthServer serve(PrometheusMeterRegistry registry, Supplier<HealthServer.Readiness> readiness) {
        try {
            return new HealthServer(new InetSocketAddress(metricsAddress, metricsPort), registry, readiness);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot serve /metrics on " + metricsAddress + ":" + metricsPort + " (--metrics-address, "
                            + "--metrics-port): " + e.getMessage(),
                    e);
        }
    }
}
