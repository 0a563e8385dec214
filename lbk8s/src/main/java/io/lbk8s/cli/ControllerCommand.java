package io.lbk8s.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.lbk8s.controller.ControllerSettings;
import io.lbk8s.controller.ElectedController;
import io.lbk8s.election.Candidacy;
import io.lbk8s.election.ElectionSettings;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

@Command(
        name = "controller",
        mixinStandardHelpOptions = true,
        description = "Assign addresses from the configured pools to LoadBalancer Services.")
final class ControllerCommand extends ClusterCommand {
    private static final Logger log = LoggerFactory.getLogger(ControllerCommand.class);

    @Option(
            names = {"-n", "--namespace"},
            description =
                    "Namespace holding IPAddressPools, L2Advertisements, the lbk8s-config ConfigMap and the leader "
                            + "election's Lease (default: $POD_NAMESPACE, else lbk8s-system).")
    String namespace;

    @Option(
            names = "--lb-class",
            description = "Serve only Services of this loadBalancerClass (default: Services without a class "
                    + "and those of class lbk8s.io/l2).")
    String lbClass;

    @Option(
            names = "--leader-elect",
            arity = "0..1",
            defaultValue = "true",
            fallbackValue = "true",
            description =
                    "Elect one leader among the controller replicas on the Lease lbk8s-controller; the others stand by. "
                            + "--leader-elect=false makes this replica lead without an election (default: ${DEFAULT-VALUE}).")
    boolean leaderElect;

    @Option(
            names = "--lease-duration",
            defaultValue = "3s",
            description =
                    "A standby takes over once the leader's Lease has not changed for this long (default: ${DEFAULT-VALUE}).")
    String leaseDuration;

    @Option(
            names = "--renew-deadline",
            defaultValue = "2s",
            description = "The leader stops leading when it could not renew the Lease for this long; shorter than "
                    + "--lease-duration (default: ${DEFAULT-VALUE}).")
    String renewDeadline;

    @Option(
            names = "--retry-period",
            defaultValue = "500ms",
            description =
                    "How often every replica reads the Lease and the leader renews it; shorter than --renew-deadline "
                            + "(default: ${DEFAULT-VALUE}).")
    String retryPeriod;

    @Mixin
    HealthOptions served;

    @Override
    public Integer call() throws Exception {
        Optional<Candidacy> candidacy = candidacy(); // bad flags are refused before anything connects
        String ns = roleNamespace(namespace);
        var registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        var settings = new ControllerSettings(ns, Optional.ofNullable(lbClass).filter(s -> !s.isBlank()));
        KubernetesClient client = kube.client();
        var replica = new ElectedController(client, settings, registry, candidacy);
        var stopped = new CountDownLatch(1);
        try (var health = served.serve(registry, replica::readiness)) {
            log.info(
                    "lbk8s controller {} starting: config namespace {}, class {}, metrics on port {}, {}",
                    VersionCommand.version(),
                    ns,
                    settings.lbClass().orElse("(none) and lbk8s.io/l2"),
                    health.port(),
                    candidacy.map(c -> "candidate " + c.identity()).orElse("no leader election"));
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                log.info("stopping");
                replica.close(); // stops reconciling, then releases the Lease
                client.close();
                stopped.countDown();
            }));
            replica.start();
            stopped.await();
        }
        return 0;
    }

    Optional<Candidacy> candidacy() {
        if (!leaderElect) {
            return Optional.empty();
        }
        try {
            var settings = new ElectionSettings(
                    DurationFlags.parse(spec, "--lease-duration", leaseDuration),
                    DurationFlags.parse(spec, "--renew-deadline", renewDeadline),
                    DurationFlags.parse(spec, "--retry-period", retryPeriod));
            return Optional.of(
                    new Candidacy(Candidacy.identity(Optional.ofNullable(System.getenv("POD_NAME"))), settings));
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }
}
