package io.lbk8s.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** One run of the {@code lbk8s} command line, in process, against the cluster of {@code kubeconfig}: what a user sees. */
public record CliRun(int code, String out, String err) {

    public static CliRun of(Path kubeconfig, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        var cli = Main.commandLine().setOut(new PrintWriter(out)).setErr(new PrintWriter(err));
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--kubeconfig", kubeconfig.toString()));
        int code = cli.execute(all.toArray(String[]::new));
        return new CliRun(code, out.toString(), err.toString());
    }
}
