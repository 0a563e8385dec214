package io.lbk8s.demo;

import java.nio.file.Path;
import java.util.Optional;

/** What {@code demo/run} was asked to do. */
sealed interface Command {

    /**
     * Run the demo.
     *
     * @param keep  leave the sandbox running at the end, until Ctrl-C
     * @param plain no colours and no redrawn status line, even on a terminal
     * @param logs  keep the sandbox's logs (and kubeconfig) here; otherwise they go to a temporary directory that is
     *              deleted with the sandbox
     * @param bgp   show BGP mode (an FRR router in front of the nodes) instead of layer 2
     * @param kubernetes on a real Kubernetes (bin/kubernetes build), lbk8s installed with lbk8s install
     */
    record Run(boolean keep, boolean plain, Optional<Path> logs, boolean bgp, boolean kubernetes) implements Command {}

    /** Remove what a demo killed with SIGKILL left behind. */
    record Clean() implements Command {}

    record Help() implements Command {}

    record Invalid(String problem) implements Command {}

    String USAGE = """
            usage: demo/run [--bgp | --kubernetes] [--keep] [--plain] [--logs DIR]
                   demo/run --clean
            Builds a sandbox LAN of network namespaces with an embedded Kubernetes API, the lbk8s controller, three nodes
            each with a speaker and a backend, and a client; then shows a Service get an address, the client reach it
            over ARP and NDP, and the traffic move when the leader fails. Needs root. Removes everything at the end.
              --bgp       BGP mode instead: an FRR router in front of the nodes peers with their speakers (BFD on), a
                          client behind it reaches the Service over all three (ECMP); a node frozen, then thawed, and a
                          speaker stopped show how fast the router stops sending traffic their way
              --kubernetes the same steps on a real Kubernetes built here (bin/kubernetes build; about 7 minutes the
                          first time): kube-apiserver, etcd, and containerd, the kubelet and kube-proxy on each node,
                          lbk8s installed with lbk8s install as real Pods; curl goes through the real kube-proxy
              --keep      leave the sandbox running at the end and print how to explore it; Ctrl-C removes it
              --plain     plain output (the default when stdout is not a terminal)
              --logs DIR  keep the logs of every process in DIR (otherwise deleted with the sandbox)
              --clean     remove sandboxes whose demo was killed (namespaces, host interfaces, temporary files)
            """;

    static Command parse(String... args) {
        boolean keep = false;
        boolean plain = false;
        boolean clean = false;
        boolean bgp = false;
        boolean kubernetes = false;
        Optional<Path> logs = Optional.empty();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--keep" -> keep = true;
                case "--plain" -> plain = true;
                case "--clean" -> clean = true;
                case "--bgp" -> bgp = true;
                case "--kubernetes" -> kubernetes = true;
                case "-h", "--help" -> {
                    return new Help();
                }
                case "--logs" -> {
                    if (i + 1 == args.length) {
                        return new Invalid("--logs needs a directory");
                    }
                    logs = Optional.of(Path.of(args[++i]).toAbsolutePath());
                }
                default -> {
                    return new Invalid("unknown argument " + args[i]);
                }
            }
        }
        if (clean && (keep || bgp || kubernetes || logs.isPresent())) {
            return new Invalid("--clean takes no other option");
        }
        if (bgp && kubernetes) {
            return new Invalid("--bgp and --kubernetes cannot go together yet");
        }
        return clean ? new Clean() : new Run(keep, plain, logs, bgp, kubernetes);
    }
}
