package io.lbk8s.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.lbk8s.install.InstallValues;
import io.lbk8s.install.ManifestOutput;
import io.lbk8s.migrate.MigrationPlan;
import io.lbk8s.migrate.Migrator;
import java.io.PrintWriter;
import java.util.List;
import java.util.Set;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
        name = "migrate",
        mixinStandardHelpOptions = true,
        description = {
            "Copy the IPAddressPools, L2Advertisements, BGPPeers, BGPAdvertisements, Communities and BFDProfiles of other "
                    + "namespaces (MetalLB's metallb-system) into lbk8s's namespace, and convert MetalLB's legacy ConfigMap "
                    + "(before 0.13) into IPAddressPools and L2Advertisements there.",
            "Creates only; never deletes the originals, but prints the command that does once you have checked.",
            "Exit codes: 0 done (or nothing to do); 1 refused, nothing created (a name that would stand for two different specs, "
                    + "a result lbk8s would reject, an API error); 2 done, but some configuration could not be converted "
                    + "(the legacy ConfigMap's BGP settings, a BGPPeer's password Secret; listed on stderr)."
        })
final class MigrateCommand extends ClusterCommand {
    static final int LEFT_OUT = 2;

    @Option(
            names = {"-n", "--namespace"},
            defaultValue = InstallValues.DEFAULT_NAMESPACE,
            description = "lbk8s's namespace, where the objects are created (default: ${DEFAULT-VALUE}).")
    String namespace;

    @Option(
            names = "--from",
            split = ",",
            paramLabel = "NAMESPACE",
            description = "Migrate only from these namespaces (default: every other namespace).")
    List<String> from = List.of();

    @Option(
            names = "--configmap",
            split = ",",
            paramLabel = "NAMESPACE/NAME",
            description =
                    "A legacy ConfigMap under another name than config (MetalLB's Helm chart named it after the release).")
    List<String> configMaps = List.of();

    @Option(names = "--dry-run", description = "Print the YAML of what would be created; change nothing.")
    boolean dryRun;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try (KubernetesClient client = kube.client()) {
            var migrator = new Migrator(client);
            MigrationPlan plan = migrator.plan(namespace, Set.copyOf(from), configMaps);
            if (plan.nothingToDo()) {
                out.println("nothing to migrate: no MetalLB object outside " + namespace
                        + " and no MetalLB legacy ConfigMap"
                        + (from.isEmpty() ? "" : " in " + String.join(", ", from)));
                return 0;
            }
            plan.leftOut().forEach(l -> err.println("left out: " + l));
            if (plan.refused()) {
                plan.refusals().forEach(r -> err.println("error: " + r));
                err.println("nothing was created");
                return 1;
            }
            plan.unchanged()
                    .forEach(m -> err.println(m.kind() + " " + m.name() + " already in " + namespace
                            + " with the same spec " + "(from " + m.from() + ")"));
            if (dryRun) {
                out.print(ManifestOutput.write(
                        plan.create().stream()
                                .map(m -> Migrator.object(namespace, m))
                                .toList(),
                        ManifestOutput.Format.yaml));
                err.println("dry run: " + plan.create().size() + " object(s) would be created in " + namespace
                        + "; nothing changed");
            } else {
                migrator.create(namespace, plan.create(), out::println);
                out.println(
                        "The originals are kept. Once lbk8s status shows every Service with its address, delete them:");
                plan.deleteCommands().forEach(c -> out.println("  " + c));
            }
            return plan.leftOut().isEmpty() ? 0 : LEFT_OUT;
        }
    }
}
