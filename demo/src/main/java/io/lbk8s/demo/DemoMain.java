package io.lbk8s.demo;

import io.lbk8s.testkit.cluster.KubernetesCluster;
import io.lbk8s.testkit.net.RouterKind;
import io.lbk8s.testkit.net.TestNetwork;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * {@code demo/run}: lbk8s on one machine, in one command. Exit codes: 0 done, 1 a step failed or something was left
 * behind, 2 cannot run here (usage, privileges, tools), 130/143 interrupted by SIGINT/SIGTERM.
 */
public final class DemoMain {
    static final String TEMP_PREFIX = "lbk8s-demo-";
    /** --keep waits for Ctrl-C, but not forever: a forgotten sandbox goes away by itself. */
    private static final Duration KEEP_AT_MOST = Duration.ofHours(12);

    private DemoMain() {}

    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String... args) {
        return switch (Command.parse(args)) {
            case Command.Help() -> {
                System.out.print(Command.USAGE);
                yield 0;
            }
            case Command.Invalid(String problem) -> {
                System.err.println("demo/run: " + problem);
                System.err.print(Command.USAGE);
                yield 2;
            }
            case Command.Clean() -> cannotRun().orElseGet(Clean::run);
            case Command.Run run ->
                cannotRun()
                        .or(() -> run.bgp() ? cannotRunBgp() : Optional.empty())
                        .or(() -> run.kubernetes() ? cannotRunKubernetes() : Optional.empty())
                        .orElseGet(() -> demo(run));
        };
    }

    /** Exit code 2 with one sentence saying what is missing, before anything is created. */
    private static Optional<Integer> cannotRun() {
        return TestNetwork.missingPrerequisites().map(missing -> {
            System.err.println("demo/run cannot run here: it " + missing.replace("; needs", ", and needs")
                    + ". Run it as root (sudo demo/run) on Linux.");
            return 2;
        });
    }

    private static Optional<Integer> cannotRunBgp() {
        return TestNetwork.missingPrerequisites(RouterKind.FRR).map(missing -> {
            System.err.println("demo/run --bgp cannot run here: it " + missing + ". As root, bin/prerequisites bgp"
                    + " installs it on Debian or Ubuntu.");
            return 2;
        });
    }

    private static Optional<Integer> cannotRunKubernetes() {
        Optional<String> missing = KubernetesCluster.missingPrerequisites()
                .or(() -> Optional.ofNullable(System.getProperty("lbk8s.dist"))
                                .filter(d -> Files.isExecutable(Path.of(d, "bin", "lbk8s")))
                                .isPresent()
                        ? Optional.empty()
                        : Optional.of("needs the distribution (-Dlbk8s.dist, which demo/run sets)"));
        return missing.map(reason -> {
            System.err.println("demo/run --kubernetes cannot run here: " + reason);
            return 2;
        });
    }

    /** The demo's walkthrough for these options; the distribution's paths come from demo/run. */
    private static Walkthrough walkthrough(
            Command.Run options, Console console, Path directory, Interruption interruption) {
        return options.kubernetes()
                ? new KubernetesDemo(
                        console,
                        directory,
                        interruption,
                        Path.of(System.getProperty("lbk8s.dist")),
                        Path.of(System.getProperty("lbk8s.image.tar")))
                : new Demo(console, directory, interruption, options.bgp());
    }

    private static int demo(Command.Run options) {
        Console console = Console.forStdout(options.plain());
        Path directory;
        try {
            directory = options.logs().isPresent()
                    ? Files.createDirectories(options.logs().get())
                    : Files.createTempDirectory(
                            TEMP_PREFIX + ProcessHandle.current().pid() + "-");
        } catch (IOException e) {
            System.err.println("demo/run: cannot create the log directory: " + e.getMessage());
            return 2;
        }
        String kind = options.kubernetes() ? "cluster" : "sandbox";
        Interruption interruption = Interruption.install(starting -> {
            console.mute();
            console.always("");
            console.always(
                    starting
                            ? "Interrupted: the " + kind + " is removed as soon as it has finished starting ..."
                            : "Interrupted: stopping the demo and removing the " + kind + " ...");
        });
        long started = System.nanoTime();
        Walkthrough demo = walkthrough(options, console, directory, interruption);
        console.always("lbk8s demo: " + demo.title() + " (demo/run --help)");
        int code;
        boolean completed = false;
        try {
            demo.run();
            completed = true;
            if (options.keep()) {
                console.heading("--keep");
                console.lines(demo.exploreHints());
                Thread.sleep(KEEP_AT_MOST);
                console.line("stopping after " + KEEP_AT_MOST.toHours() + " h");
            }
            code = 0;
        } catch (Exception | Error e) {
            code = interruption.signal().isPresent()
                    ? (completed ? 0 : interruption.exitCode())
                    : failed(e, directory, options);
        } finally {
            interruption.beginTeardown();
        }
        console.heading("Removing the " + demo.what());
        Teardown.Result result = demo.teardown(options.logs().isPresent() ? Optional.empty() : Optional.of(directory));
        if (result.left().isEmpty()) {
            result.removed().forEach(what -> console.always("  removed " + what));
            console.always("  nothing left behind");
        } else {
            console.always(
                    "  LEFT BEHIND: " + String.join("; ", result.left()) + ". demo/run --clean removes what it can.");
            code = code == 0 ? 1 : code;
        }
        options.logs().ifPresent(logs -> console.always("  logs kept in " + logs));
        console.always((code == 0 ? "Done" : "Stopped") + " in "
                + Format.seconds(Duration.ofNanos(System.nanoTime() - started))
                + interruption.signal().map(s -> " (" + s + ")").orElse("") + ".");
        return code;
    }

    /** What went wrong and the end of each process's log: they are deleted with the sandbox unless --logs was given. */
    private static int failed(Throwable e, Path directory, Command.Run options) {
        System.out.flush();
        System.err.println();
        System.err.println("demo/run: " + (e instanceof StepFailed ? e.getMessage() : e.toString()));
        if (!(e instanceof StepFailed)) {
            e.printStackTrace(System.err);
        }
        try (Stream<Path> logs = Files.list(directory)) {
            for (Path log :
                    logs.filter(p -> p.toString().endsWith(".log")).sorted().toList()) {
                List<String> lines = Files.readAllLines(log);
                System.err.println("--- " + log.getFileName() + " (last lines of " + lines.size() + ")");
                lines.subList(Math.max(0, lines.size() - 8), lines.size()).forEach(l -> System.err.println("    " + l));
            }
        } catch (IOException | RuntimeException ignored) {
            // no logs yet
        }
        if (options.logs().isEmpty()) {
            System.err.println("(these logs are deleted with the sandbox; demo/run --logs DIR keeps them)");
        }
        return 1;
    }
}
