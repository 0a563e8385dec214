package io.lbk8s.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.lbk8s.controller.Controller;
import io.lbk8s.controller.ControllerSettings;
import io.lbk8s.health.HealthServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "controller", mixinStandardHelpOptions = true,
        description = "Assign addresses from the configured pools to LoadBalancer Services.")
final class ControllerCommand implements Callable<Integer> {
    private static final Logger log = LoggerFactory.getLogger(ControllerCommand.class);

    @Mixin
    KubeOptions kube;

    @Option(names = {"-n", "--namespace"},
            description = "Namespace holding IPAddressPools, L2Advertisements and the lbk8s-config ConfigMap "
                    + "(default: $POD_NAMESPACE, else lbk8s-system).")
    String namespace;

    @Option(names = "--lb-class",
            description = "Serve only Services of this loadBalancerClass (default: Services without a class "
                    + "and those of class lbk8s.io/l2).")
    String lbClass;

    @Mixin
    HealthOptions served;

    @Override
    public Integer call() throws Exception {
        String ns = Optional.ofNullable(namespace)
                .or(() -> Optional.ofNullable(System.getenv("POD_NAMESPACE")))
                .orElse("lbk8s-system");
        var registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        var settings = new ControllerSettings(ns, Optional.ofNullable(lbClass).filter(s -> !s.isBlank()));
        KubernetesClient client = kube.client();
        Controller controller = new Controller(client, settings, registry);
        var stopped = new CountDownLatch(1);
        try (var health = new HealthServer(served.address(), registry, controller::readiness)) {
            log.info("lbk8s controller {} starting: config namespace {}, class {}, metrics on port {}",
                    VersionCommand.version(), ns, settings.lbClass().orElse("(none) and lbk8s.io/l2"), health.port());
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                log.info("stopping");
                controller.close();
                client.close();
                stopped.countDown();
            }));
            controller.start();
            controller.lead(); // until there is an election, every replica leads
            stopped.await();
        }
        return 0;
    }
}
