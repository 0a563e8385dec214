package io.lbk8s.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lbk8s.testkit.net.CommandResult;
import io.lbk8s.testkit.net.Shell;
import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The two other ways the docs give to install lbk8s, each on a cluster of its own: {@code kubectl apply -f
 * deploy/crds}, then {@code -f deploy/lbk8s.yaml} (its example pool then set to the LAN's range, as the docs' Kustomize patch does) and the Helm
 * chart (the namespace made first with its PodSecurity labels, as the chart's README says). Each must bring up the
 * controllers and speakers Ready and serve a Service from the LAN.
 */
class OtherInstallPathsIT {

    @BeforeAll
    static void prerequisites() {
        ClusterPrerequisites.check();
    }

    @Test
    void kubectlApplyOfThePlainManifests() throws IOException {
        try (UserCluster c = UserCluster.start(getClass().getSimpleName() + "-kubectl")) {
            // As docs/install.md says: the CRDs first, served, then the rest (in one apply, the pool in the same
            // file meets a CRD that kube-apiserver does not serve yet: "no matches for kind IPAddressPool").
            String crds = UserCluster.REPOSITORY.resolve("deploy/crds").toString();
            c.kubectlOk("apply", "-f", crds);
            c.kubectlOk("wait", "--for", "condition=Established", "--timeout", "60s", "-f", crds);
            c.kubectlOk(
                    "apply",
                    "-f",
                    UserCluster.REPOSITORY.resolve("deploy/lbk8s.yaml").toString());
            c.kubectlOk(
                    "patch",
                    "ipaddresspool",
                    "default",
                    "-n",
                    "lbk8s-system",
                    "--type",
                    "json",
                    "-p",
                    "[{\"op\": \"replace\", \"path\": \"/spec/addresses\", \"value\": [\""
                            + c.cluster.network().ipv4Pool() + "\"]}]");

            assertRunningAndServing(c);
        }
    }

    @Test
    void helmInstallOfTheChart() throws IOException {
        try (UserCluster c = UserCluster.start(getClass().getSimpleName() + "-helm")) {
            c.kubectlOk("create", "namespace", "lbk8s-system");
            c.kubectlOk("label", "namespace", "lbk8s-system", "pod-security.kubernetes.io/enforce=privileged");
            CommandResult helm = Shell.run(
                    Duration.ofMinutes(4),
                    List.of(
                            c.cluster.build().bin("helm").toString(),
                            "install",
                            "lbk8s",
                            UserCluster.REPOSITORY.resolve("charts/lbk8s").toString(),
                            "--namespace",
                            "lbk8s-system",
                            "--kubeconfig",
                            c.cluster.kubeconfig().toString(),
                            "--set",
                            "addresses={" + c.cluster.network().ipv4Pool() + "}",
                            // the image built here is tagged with the project's version, not the chart's appVersion
                            "--set",
                            "image.tag=" + System.getProperty("lbk8s.version"),
                            "--wait",
                            "--timeout",
                            "3m"));
            assertThat(helm.ok()).as(helm.output()).isTrue();

            assertRunningAndServing(c);
        }
    }

    /** Controllers and speakers Ready by their probes, a Service served from the LAN, no request forbidden. */
    private static void assertRunningAndServing(UserCluster c) throws IOException {
        c.kubectlOk("rollout", "status", "deployment/lbk8s-controller", "-n", "lbk8s-system", "--timeout=180s");
        c.kubectlOk("rollout", "status", "daemonset/lbk8s-speaker", "-n", "lbk8s-system", "--timeout=180s");
        c.assertLbk8sReady();

        c.apply(UserCluster.web("web", 2, """
                spec:
                  type: LoadBalancer
                  selector: {app: web}
                  ports: [{port: 80, targetPort: 8080}]
                """, ""));
        InetAddress ip = InetAddress.getByName(c.awaitIngress("web", 1).getFirst());

        assertThat(ip.getHostAddress())
                .startsWith(c.cluster.network().ipv4Pool().substring(0, 8));
        Optional<String> body = await("curl http://" + ip.getHostAddress() + "/ answered")
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> c.cluster.network().client().curl(ip, Duration.ofSeconds(1)), Optional::isPresent);
        assertThat(c.nodeOf(body)).as("a backend Pod answers: %s", body).isPresent();
        assertThat(c.cluster.network().client().arpingAll(ip, Duration.ofSeconds(2)))
                .hasSize(1);
        assertThat(c.lbk8sLogs()).doesNotContainIgnoringCase("forbidden");
    }
}
