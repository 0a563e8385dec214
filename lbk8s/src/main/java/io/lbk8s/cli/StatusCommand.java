package io.lbk8s.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.lbk8s.install.InstallProblem;
import io.lbk8s.install.InstallValues;
import io.lbk8s.install.ManifestOutput;
import io.lbk8s.install.StatusCollector;
import io.lbk8s.install.StatusReport;
import io.lbk8s.install.StatusText;
import java.io.PrintWriter;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "status",
        mixinStandardHelpOptions = true,
        description = {
            "Show which controller leads, the address pools with their use, and every LoadBalancer Service with its address, "
                    + "pool and announcing node.",
            "Says why a pending Service is pending. `status svc/NAME -n NS` explains one Service."
        })
final class StatusCommand extends ClusterCommand {
    private static final Pattern SERVICE = Pattern.compile("(?:svc|service|services)/([a-z0-9]([-a-z0-9.]*[a-z0-9])?)");

    @Parameters(arity = "0..1", paramLabel = "svc/NAME", description = "One Service to explain.")
    String target;

    @Option(
            names = {"-n", "--namespace"},
            description = "The Services' namespace (default: all namespaces; with svc/NAME, "
                    + "the kubeconfig context's namespace).")
    String namespace;

    @Option(
            names = "--lbk8s-namespace",
            defaultValue = InstallValues.DEFAULT_NAMESPACE,
            description = "Where lbk8s runs and keeps its pools (default: ${DEFAULT-VALUE}).")
    String systemNamespace;

    @Option(names = "--lb-class", description = "The class the controller was started with (--lb-class), if any.")
    String lbClass;

    @Option(
            names = {"-o", "--output"},
            description = "yaml or json instead of the table.")
    ManifestOutput.Format output;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        try (KubernetesClient client = kube.client()) {
            Optional<String> cls = Optional.ofNullable(lbClass).filter(s -> !s.isBlank());
            var collector = new StatusCollector(client);
            if (target == null) {
                StatusReport report =
                        StatusReport.of(collector.read(systemNamespace, Optional.ofNullable(namespace), cls));
                out.print(output == null ? StatusText.report(report) : ManifestOutput.value(report, output));
                return 0;
            }
            Matcher m = SERVICE.matcher(target);
            if (!m.matches()) {
                throw new InstallProblem("\"" + target + "\" is not svc/NAME (status explains Services only)");
            }
            String ns = Optional.ofNullable(namespace)
                    .orElseGet(() -> Optional.ofNullable(client.getNamespace()).orElse("default"));
            var detail = StatusReport.detail(collector.read(systemNamespace, Optional.of(ns), cls), ns, m.group(1))
                    .orElseThrow(() -> new InstallProblem("service " + ns + "/" + m.group(1) + " not found"));
            out.print(output == null ? StatusText.detail(detail) : ManifestOutput.value(detail, output));
            return 0;
        }
    }
}
