package io.lbk8s.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.lbk8s.install.InstallValues;
import io.lbk8s.install.Uninstaller;
import java.io.PrintWriter;
import java.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
        name = "uninstall",
        mixinStandardHelpOptions = true,
        description = {
            "Remove what lbk8s install made (objects labelled app.kubernetes.io/managed-by=lbk8s-install).",
            "Your own IPAddressPools and L2Advertisements stay, and with them the CRDs and the namespace, unless --purge.",
            "CRDs and a namespace that install did not make (MetalLB's, yours) always stay."
        })
final class UninstallCommand extends ClusterCommand {
    @Option(
            names = {"-n", "--namespace"},
            defaultValue = InstallValues.DEFAULT_NAMESPACE,
            description = "Namespace lbk8s was installed into (default: ${DEFAULT-VALUE}).")
    String namespace;

    @Option(
            names = "--purge",
            description =
                    "Also delete the CRDs and the namespace install made, even when pools it did not make use them "
                            + "(they go with them).")
    boolean purge;

    @Option(
            names = "--wait",
            arity = "0..1",
            defaultValue = "true",
            fallbackValue = "true",
            description = "Wait until the deleted namespace and CRDs are gone, as kubectl delete does (default:"
                    + " ${DEFAULT-VALUE}; --wait=false to skip).")
    boolean waitUntilGone;

    @Option(
            names = "--timeout",
            defaultValue = "2m",
            description = "How long --wait waits (default: ${DEFAULT-VALUE}); then the exit code is 1.")
    String timeout;

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        Duration waitAtMost = DurationFlags.parse(spec, "--timeout", timeout);
        try (KubernetesClient client = kube.client()) {
            Uninstaller uninstaller = new Uninstaller(client);
            var results = uninstaller.uninstall(namespace, purge, out::println);
            if (results.stream().noneMatch(r -> r.action() == Uninstaller.Action.deleted)) {
                out.println("nothing to delete: lbk8s install has nothing in this cluster");
            }
            return !waitUntilGone || uninstaller.awaitGone(waitAtMost, out::println) ? 0 : 1;
        }
    }
}
