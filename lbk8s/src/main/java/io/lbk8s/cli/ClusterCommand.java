package io.lbk8s.cli;

import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** A command that talks to the cluster: kubectl's connection options, and its own spec for output and errors. */
abstract class ClusterCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    KubeOptions kube;

    /** The roles' namespace: the flag, else the Pod's own (the manifests set POD_NAMESPACE), else lbk8s-system. */
    static String roleNamespace(String flag) {
        return Optional.ofNullable(flag)
                .or(() -> Optional.ofNullable(System.getenv("POD_NAMESPACE")))
                .orElse("lbk8s-system");
    }
}
