package io.lbk8s.dist;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ServiceStatusBuilder;
import io.lbk8s.testkit.cluster.FreshApiServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The real kubectl runs {@code kubectl lbk8s}: the archive installed as krew installs it (unpacked into a directory
 * of its own, the manifest's bin linked into a directory on PATH), against the real kube-apiserver named by KUBECONFIG.
 */
class KubectlPluginIT {
    static final Duration RUN = Duration.ofSeconds(60);

    @TempDir
    static Path temp;

    static Path tarball;
    static Map<String, Object> manifest;
    static Path krewBin;
    static FreshApiServer server;
    static Map<String, String> env;

    @BeforeAll
    @SuppressWarnings("unchecked")
    static void installAndStartTheApiServer() throws IOException {
        tarball = Path.of(System.getProperty("lbk8s.dist"));
        manifest = YAMLMapper.builder()
                .build()
                .readValue(Files.readString(Path.of(System.getProperty("lbk8s.krew.manifest"))), Map.class);
        // krew: the archive unpacked into the plugin's own directory, a link to its bin in ~/.krew/bin
        Path store = Files.createDirectories(temp.resolve("krew/store/lbk8s/v" + System.getProperty("lbk8s.version")));
        Cmd.run(RUN, List.of("tar", "-xzf", tarball.toString(), "-C", store.toString()))
                .ok();
        krewBin = Files.createDirectories(temp.resolve("krew/bin"));
        Files.createSymbolicLink(
                krewBin.resolve("kubectl-lbk8s"), store.resolve(platform().get("bin")));
        // krew links only the manifest's bin; the completion executable is linked by hand, as the docs say
        Files.createSymbolicLink(
                krewBin.resolve("kubectl_complete-lbk8s"),
                store.resolve(platform().get("bin")).resolveSibling("kubectl_complete-lbk8s"));

        server = FreshApiServer.startWithCrds(Path.of("..", "deploy", "crds"));
        // KUBECONFIG as a list, as kubectl merges it: the cluster in one file, the user and contexts in the other
        String admin = Files.readString(server.writeKubeconfig(temp.resolve("admin.yaml")));
        int users = admin.indexOf("users:");
        Path clusters = Files.writeString(temp.resolve("clusters.yaml"), admin.substring(0, users));
        Path contexts = Files.writeString(
                temp.resolve("contexts.yaml"), "apiVersion: v1\nkind: Config\n" + admin.substring(users));
        env = Map.of(
                "PATH", krewBin + ":" + System.getenv("PATH"),
                "HOME", Files.createDirectories(temp.resolve("home")).toString(),
                "KUBECONFIG", contexts + ":" + clusters);

        kubectl(
                        "apply",
                        "-f",
                        Files.writeString(temp.resolve("objects.yaml"), """
                apiVersion: v1
                kind: Namespace
                metadata: {name: lbk8s-system}
                ---
                apiVersion: metallb.io/v1beta1
                kind: IPAddressPool
                metadata: {name: lan, namespace: lbk8s-system}
                spec: {addresses: ["10.5.0.200-10.5.0.202"]}
                ---
                apiVersion: metallb.io/v1beta1
                kind: L2Advertisement
                metadata: {name: all, namespace: lbk8s-system}
                ---
                apiVersion: v1
                kind: Service
                metadata:
                  name: web
                  namespace: default
                  annotations: {metallb.io/ip-allocated-from-pool: lan}
                spec:
                  type: LoadBalancer
                  ports: [{port: 80}]
                """).toString())
                .ok();
        // what the controller would write: the address in the Service's status (a subresource kubectl 1.20, Debian
        // 12's, cannot patch)
        var services = server.client().services().inNamespace("default");
        var web = services.withName("web").get();
        web.setStatus(new ServiceStatusBuilder()
                .withNewLoadBalancer()
                .addNewIngress()
                .withIp("10.5.0.200")
                .endIngress()
                .endLoadBalancer()
                .build());
        services.resource(web).updateStatus();
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    static Cmd kubectl(String... args) {
        List<String> command = new ArrayList<>(List.of("kubectl"));
        command.addAll(List.of(args));
        return Cmd.run(RUN, env, command);
    }

    @SuppressWarnings("unchecked")
    static Map<String, String> platform() {
        var spec = (Map<String, Object>) manifest.get("spec");
        return ((List<Map<String, String>>) spec.get("platforms")).getFirst();
    }

    @Test
    void kubectlLbk8sStatusShowsThePoolAndTheService() {
        Cmd status = kubectl("lbk8s", "status").ok();
        assertThat(status.out())
                .containsPattern("(?m)^lan +10\\.5\\.0\\.200-10\\.5\\.0\\.202 +true +1 +2$")
                .containsPattern("(?m)^default +web +10\\.5\\.0\\.200 +lan ");
        assertThat(status.err()).isEmpty();

        Cmd one = kubectl("lbk8s", "status", "svc/web", "-n", "default", "--context", "test")
                .ok();
        assertThat(one.out()).contains("External IPs:      10.5.0.200\n", "Pool:              lan (");
    }

    @Test
    void itsHelpSaysKubectlLbk8s() {
        assertThat(kubectl("lbk8s", "status", "--help").ok().out()).startsWith("Usage: kubectl lbk8s status ");
        Cmd wrong = kubectl("lbk8s", "statsu");
        assertThat(wrong.exit()).isEqualTo(2);
        assertThat(wrong.err()).contains("did you mean status or").endsWith("(see kubectl lbk8s --help)\n");
    }

    @Test
    void kubectlCompletesTheWordsOfKubectlLbk8s() {
        String version = kubectl("version", "--client").ok().out();
        Matcher minor = Pattern.compile("v1\\.(\\d+)\\.").matcher(version);
        assertThat(minor.find()).as(version).isTrue();
        Assumptions.assumeTrue(
                Integer.parseInt(minor.group(1)) >= 26, "kubectl completes plugins from 1.26 on: " + version);
        // what kubectl's bash and zsh completion ask it for `kubectl lbk8s st<TAB>` and `kubectl lbk8s status -o <TAB>`
        assertThat(kubectl("__complete", "lbk8s", "st").ok().out().lines()).containsExactly("status", ":4");
        assertThat(kubectl("__complete", "lbk8s", "status", "-o", "").ok().out().lines())
                .containsExactly("json", "yaml", ":4");
    }

    @Test
    void kubectlPluginListFindsIt() {
        Cmd list = kubectl("plugin", "list");
        assertThat(list.out()).contains(krewBin.resolve("kubectl-lbk8s").toString());
        assertThat(list.err()).doesNotContain("kubectl-lbk8s");
    }

    @Test
    @SuppressWarnings("unchecked")
    void krewManifestNamesThisArchiveAndItsSha256() throws IOException, NoSuchAlgorithmException {
        assertThat(manifest)
                .containsEntry("apiVersion", "krew.googlecontainertools.github.com/v1alpha2")
                .containsEntry("kind", "Plugin");
        assertThat((Map<String, Object>) manifest.get("metadata")).containsEntry("name", "lbk8s");
        var spec = (Map<String, Object>) manifest.get("spec");
        assertThat(spec.get("version")).isEqualTo("v" + System.getProperty("lbk8s.version"));
        assertThat(spec).containsKeys("homepage", "shortDescription", "description");
        assertThat((List<?>) spec.get("platforms")).hasSize(1);
        Map<String, Object> selector = (Map<String, Object>)
                ((Map<String, Object>) ((List<?>) spec.get("platforms")).getFirst()).get("selector");
        assertThat((Map<String, String>) selector.get("matchLabels")).isEqualTo(Map.of("os", "linux", "arch", "amd64"));
        assertThat(platform().get("uri")).endsWith("/" + tarball.getFileName());
        String sha256 =
                HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(tarball)));
        assertThat(platform().get("sha256")).isEqualTo(sha256);
        try (Stream<Path> links = Files.list(krewBin)) {
            assertThat(links.toList()).allSatisfy(link -> assertThat(link).isExecutable());
        }
    }
}
