package io.lbk8s.testkit.net;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The commands the test routers run, with the Debian package of each; needed only by tests with a router, so they are
 * not among the {@link Tool}s every test network checks for. FRR's daemons are in {@link FrrRouter#DAEMONS}, off the
 * PATH; vtysh stands for the package. bin/prerequisites lists the same ones (its bgp_tools).
 */
enum RouterTool {
    VTYSH("vtysh", "frr"),
    BIRD("bird", "bird2"),
    BIRDC("birdc", "bird2"),
    GOBGPD("gobgpd", "gobgpd"),
    GOBGP("gobgp", "gobgpd");

    private final String command;
    private final String debianPackage;

    RouterTool(String command, String debianPackage) {
        this.command = command;
        this.debianPackage = debianPackage;
    }

    String path() {
        return Tool.find(command).map(Path::toString).orElse(command);
    }

    /** Why {@code kind} cannot run here, e.g. "needs the command bird (Debian package bird2)"; empty when it can. */
    static Optional<String> missingFor(RouterKind kind) {
        List<RouterTool> tools = switch (kind) {
            case FRR -> List.of(VTYSH);
            case BIRD -> List.of(BIRD, BIRDC);
            case GOBGP -> List.of(GOBGPD, GOBGP);
        };
        Stream<String> missingDaemons = kind == RouterKind.FRR
                ? Stream.of("zebra", "bgpd", "bfdd")
                        .filter(d -> !FrrRouter.DAEMONS.resolve(d).toFile().canExecute())
                        .map(d -> "needs " + FrrRouter.DAEMONS.resolve(d) + " (Debian package frr)")
                : Stream.empty();
        List<String> missing = Stream.concat(
                        tools.stream()
                                .filter(t -> Tool.find(t.command).isEmpty())
                                .map(t ->
                                        "needs the command " + t.command + " (Debian package " + t.debianPackage + ")"),
                        missingDaemons)
                .toList();
        return missing.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", missing));
    }
}
