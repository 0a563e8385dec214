package io.lbk8s.cli;

import java.net.InetSocketAddress;
import picocli.CommandLine.Option;

/** Where a long-running role serves /metrics, /healthz and /readyz. */
final class HealthOptions {
    @Option(names = "--metrics-address", defaultValue = "0.0.0.0",
            description = "Address for /metrics, /healthz and /readyz (default: ${DEFAULT-VALUE}).")
    String metricsAddress;

    @Option(names = "--metrics-port", defaultValue = "7472",
            description = "Port for /metrics, /healthz and /readyz (default: ${DEFAULT-VALUE}; 0 picks one).")
    int metricsPort;

    InetSocketAddress address() {
        return new InetSocketAddress(metricsAddress, metricsPort);
    }
}
