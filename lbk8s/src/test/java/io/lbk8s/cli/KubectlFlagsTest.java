package io.lbk8s.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.lbk8s.testkit.cluster.FreshApiServer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kubectl hands a plugin none of its flags: {@code kubectl lbk8s status --context prod} reaches lbk8s as its own
 * arguments, so lbk8s reads kubectl's connection flags, and names itself as the user typed it.
 */
class KubectlFlagsTest {

    static CliRun run(String commandName, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        var cli = Main.commandLine()
                .setCommandName(commandName)
                .setOut(new PrintWriter(out))
                .setErr(new PrintWriter(err));
        int code = cli.execute(args);
        return new CliRun(code, out.toString(), err.toString());
    }

    @Test
    void contextChoosesTheContextNotTheCurrentOne(@TempDir Path dir) throws Exception {
        try (FreshApiServer server = FreshApiServer.startWithCrds(Path.of("..", "deploy", "crds"))) {
            server.ensureNamespace("shop");
            server.client()
                    .services()
                    .inNamespace("shop")
                    .resource(new ServiceBuilder()
                            .withNewMetadata()
                            .withName("db")
                            .endMetadata()
                            .withNewSpec()
                            .withType("LoadBalancer")
                            .addNewPort()
                            .withPort(5432)
                            .endPort()
                            .endSpec()
                            .build())
                    .create();
            // two contexts on one server that differ in their namespace, which svc/NAME without -n is looked up in
            Path kubeconfig = server.writeKubeconfig(
                    dir.resolve("kubeconfig"), Map.of("plain", "default", "shop", "shop"), "plain");
            String[] status = {"status", "svc/db", "--kubeconfig", kubeconfig.toString(), "--request-timeout", "5s"};

            CliRun current = run("lbk8s", status);
            assertThat(current.code()).isEqualTo(1);
            assertThat(current.err()).isEqualTo("error: service default/db not found\n");

            CliRun chosen = run(
                    "lbk8s",
                    Stream.concat(Stream.of(status), Stream.of("--context", "shop"))
                            .toArray(String[]::new));
            assertThat(chosen.code()).as(chosen.err()).isZero();
            assertThat(chosen.out()).contains("Name:              db\n", "Namespace:         shop\n");
        }
    }

    @Test
    void aRequestTimeoutThatIsNoDurationIsRefusedLikeABadFlag() {
        CliRun run = run("lbk8s", "status", "--request-timeout", "soon");
        assertThat(run.code()).isEqualTo(2);
        assertThat(run.err())
                .isEqualTo("error: --request-timeout: \"soon\" is not a duration like 90s, 3m or 500ms"
                        + " (see lbk8s status --help)\n");
    }

    @Test
    void asTheKubectlPluginItsHelpAndErrorsSayKubectlLbk8s() {
        String name = Invocation.of("/home/user/.krew/bin/kubectl-lbk8s").commandName();
        CliRun help = run(name, "status", "--help");
        assertThat(help.code()).isZero();
        assertThat(help.out()).startsWith("Usage: kubectl lbk8s status ").contains("--context", "--kubeconfig");

        CliRun wrong = run(name, "status", "--contxt", "x");
        assertThat(wrong.code()).isEqualTo(2);
        assertThat(wrong.err()).endsWith("(see kubectl lbk8s status --help)\n");
    }

    @Test
    void anyOtherNameIsLbk8s() {
        assertThat(Invocation.of(null).commandName()).isEqualTo("lbk8s");
        assertThat(Invocation.of("/opt/lbk8s/bin/lbk8s").commandName()).isEqualTo("lbk8s");
        assertThat(Invocation.of("sh").commandName()).isEqualTo("lbk8s");
    }
}
