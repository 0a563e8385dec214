package io.lbk8s.cli;

import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The one lbk8s executable; each role and tool is a subcommand. */
@Command(
        name = "lbk8s",
        mixinStandardHelpOptions = true,
        versionProvider = VersionCommand.Provider.class,
        description = "MetalLB-compatible layer-2 load balancer for bare-metal and local Kubernetes clusters.",
        subcommands = {
            ControllerCommand.class,
            SpeakerCommand.class,
            InstallCommand.class,
            UninstallCommand.class,
            StatusCommand.class,
            MigrateCommand.class,
            VersionCommand.class,
            CompletionCommand.class,
            AotTrainingCommand.class,
            CommandLine.HelpCommand.class
        })
public final class Main implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String... args) {
        Invocation invocation = Invocation.fromEnvironment();
        CommandLine cli = commandLine().setCommandName(invocation.commandName());
        try {
            if (invocation.kubectlCompletion()) {
                return KubectlCompletion.print(cli, List.of(args), cli.getOut());
            }
            if (args.length > 0 && args[0].equals(KubectlCompletion.COMMAND)) {
                return KubectlCompletion.print(cli, List.of(args).subList(1, args.length), cli.getOut());
            }
            return cli.execute(args);
        } finally {
            cli.getOut().flush();
            cli.getErr().flush();
        }
    }

    /** The command line of every run, tests' too: its errors end as {@link OneLineErrors} says. */
    public static CommandLine commandLine() {
        return OneLineErrors.installOn(new CommandLine(new Main()).setCaseInsensitiveEnumValuesAllowed(true));
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a subcommand is required");
    }
}
