package io.lbk8s.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The only test that needs kubectl; skipped where /usr/bin/kubectl is absent. */
class KubectlSmokeTest {

    private static final Path KUBECTL = Path.of("/usr/bin/kubectl");

    @Test
    void kubectlWorksAgainstTheServer(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(KUBECTL), "kubectl not installed");
        try (TestApiServer server = TestApiServer.start()) {
            Path kubeconfig = server.writeKubeconfig(dir.resolve("kubeconfig"));
            TestSupport.createIpAddressPoolCrd(server.client());
            Path manifest = dir.resolve("objects.yaml");
            Files.writeString(manifest, """
          apiVersion: v1
          kind: Service
          metadata: {name: web, namespace: default}
          spec:
            type: LoadBalancer
            ports: [{name: http, port: 80}]
          ---
          apiVersion: metallb.io/v1beta1
          kind: IPAddressPool
          metadata: {name: pool, namespace: default}
          spec: {addresses: [192.0.2.0/28]}
          """);
            Path cache = dir.resolve("cache");
            assertThat(kubectl(kubeconfig, cache, "apply", "-f", manifest.toString()))
                    .contains("service/web created");
            server.client()
                    .services()
                    .withName("web")
                    .subresource("status")
                    .patch(
                            io.fabric8.kubernetes.client.dsl.base.PatchContext.of(
                                    io.fabric8.kubernetes.client.dsl.base.PatchType.JSON_MERGE),
                            "{\"status\":{\"loadBalancer\":{\"ingress\":[{\"ip\":\"192.0.2.5\"}]}}}");
            assertThat(kubectl(kubeconfig, cache, "get", "svc", "-A"))
                    .contains("web")
                    .contains("EXTERNAL-IP")
                    .contains("192.0.2.5");
            assertThat(kubectl(kubeconfig, cache, "get", "ipaddresspools.metallb.io", "-A"))
                    .contains("pool");
            assertThat(kubectl(kubeconfig, cache, "label", "svc", "web", "a=b")).contains("labeled");
            assertThat(kubectl(kubeconfig, cache, "annotate", "svc", "web", "x=y"))
                    .contains("annotated");
            assertThat(kubectl(
                            kubeconfig,
                            cache,
                            "patch",
                            "svc",
                            "web",
                            "--type=merge",
                            "-p",
                            "{\"spec\":{\"externalTrafficPolicy\":\"Local\"}}"))
                    .contains("patched");
            var web = server.client().services().withName("web").get();
            server.client()
                    .v1()
                    .events()
                    .resource(new io.fabric8.kubernetes.api.model.EventBuilder()
                            .withNewMetadata()
                            .withName("web.1")
                            .withNamespace("default")
                            .endMetadata()
                            .withNewInvolvedObject()
                            .withApiVersion("v1")
                            .withKind("Service")
                            .withName("web")
                            .withNamespace("default")
                            .withUid(web.getMetadata().getUid())
                            .endInvolvedObject()
                            .withReason("IPAllocated")
                            .withMessage("Assigned IP [\"192.0.2.5\"]")
                            .withType("Normal")
                            .withCount(1)
                            .withNewSource()
                            .withComponent("metallb-controller")
                            .endSource()
                            .withFirstTimestamp(web.getMetadata().getCreationTimestamp())
                            .withLastTimestamp(web.getMetadata().getCreationTimestamp())
                            .build())
                    .create();
            String describe = kubectl(kubeconfig, cache, "describe", "svc", "web");
            assertThat(describe)
                    .contains("a=b")
                    .contains("External Traffic Policy:  Local")
                    .contains("10.96.")
                    .contains("IPAllocated");
            assertThat(kubectl(kubeconfig, cache, "delete", "svc", "web")).contains("deleted");
            assertThat(server.client().services().withName("web").get()).isNull();
        }
    }

    /** The "done when": MetalLB-style manifests with a plain apply, refusals in the API server's words. */
    @Test
    void metallbManifestsApplyWithoutValidateFalseAndRefusalsReadAsOnARealCluster(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(KUBECTL), "kubectl not installed");
        try (TestApiServer server = TestApiServer.start()) {
            server.createCrds(Path.of("..", "deploy", "crds"));
            Path kubeconfig = server.writeKubeconfig(dir.resolve("kubeconfig"));
            Path cache = dir.resolve("cache");
            assertThat(kubectl(kubeconfig, cache, "create", "namespace", "metallb-system"))
                    .contains("namespace/metallb-system created");
            Path samples = dir.resolve("samples.yaml");
            Files.writeString(samples, """
          apiVersion: metallb.io/v1beta1
          kind: IPAddressPool
          metadata: {name: lan, namespace: metallb-system}
          spec:
            addresses: [192.168.50.0/24, 192.168.51.10-192.168.51.20, "fd00:50::/124"]
          ---
          apiVersion: metallb.io/v1beta1
          kind: IPAddressPool
          metadata: {name: selected, namespace: metallb-system}
          spec:
            addresses: [10.20.0.0/24]
            avoidBuggyIPs: true
            serviceAllocation:
              priority: 10
              namespaces: [team-a]
              namespaceSelectors: [{matchLabels: {env: prod}}]
              serviceSelectors: [{matchExpressions: [{key: tier, operator: In, values: [web]}]}]
          ---
          apiVersion: metallb.io/v1beta1
          kind: L2Advertisement
          metadata: {name: all, namespace: metallb-system}
          ---
          apiVersion: metallb.io/v1beta1
          kind: L2Advertisement
          metadata: {name: some, namespace: metallb-system}
          spec:
            ipAddressPools: [lan]
            nodeSelectors: [{matchLabels: {kubernetes.io/hostname: node-1}}]
          """);
            assertThat(kubectl(kubeconfig, cache, "apply", "-f", samples.toString()))
                    .contains(
                            "ipaddresspool.metallb.io/lan created",
                            "ipaddresspool.metallb.io/selected created",
                            "l2advertisement.metallb.io/all created",
                            "l2advertisement.metallb.io/some created");
            assertThat(kubectl(kubeconfig, cache, "explain", "ipaddresspool.spec.addresses"))
                    .contains("<[]string>");
            assertThat(kubectl(kubeconfig, cache, "explain", "service.spec.ports"))
                    .contains("<[]ServicePort>");
            Path bad = dir.resolve("bad.yaml");
            Files.writeString(bad, """
          apiVersion: v1
          kind: Service
          metadata: {name: bad, namespace: default}
          spec:
            ports: [{port: 80, protocol: UDPk}]
          """);
            assertThat(kubectlFailing(kubeconfig, cache, "apply", "-f", bad.toString()))
                    .contains("The Service \"bad\" is "
                            + "invalid: spec.ports[0].protocol: Unsupported value: \"UDPk\": supported values: \"SCTP\", \"TCP\", "
                            + "\"UDP\"");
            Files.writeString(bad, """
          apiVersion: metallb.io/v1beta1
          kind: IPAddressPool
          metadata: {name: typo, namespace: metallb-system}
          spec: {addresses: [10.0.0.0/24], autoassign: false}
          """);
            assertThat(kubectlFailing(kubeconfig, cache, "apply", "-f", bad.toString()))
                    .contains("strict decoding error: unknown field \"spec.autoassign\"");
        }
    }

    private static String kubectlFailing(Path kubeconfig, Path cache, String... args) throws Exception {
        return run(kubeconfig, cache, false, args);
    }

    private static String kubectl(Path kubeconfig, Path cache, String... args) throws Exception {
        return run(kubeconfig, cache, true, args);
    }

    private static String run(Path kubeconfig, Path cache, boolean succeeds, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(
                KUBECTL.toString(),
                "--kubeconfig",
                kubeconfig.toString(),
                "--cache-dir",
                cache.toString(),
                "--request-timeout",
                "10s"));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        boolean done = p.waitFor(30, TimeUnit.SECONDS);
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!done) {
            p.destroyForcibly();
        }
        assertThat(done).as("kubectl %s finished", String.join(" ", args)).isTrue();
        assertThat(p.exitValue() == 0)
                .as("kubectl %s: %s", String.join(" ", args), output)
                .isEqualTo(succeeds);
        return output;
    }
}
