package io.lbk8s.cli;

import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(
        name = "completion",
        mixinStandardHelpOptions = true,
        description = {
            "Print the shell completion script for bash or zsh: subcommands, flags and their values.",
            "bash: source <(lbk8s completion bash), or save it in /etc/bash_completion.d/lbk8s.",
            "zsh: source <(lbk8s completion zsh) in ~/.zshrc (the script loads bashcompinit itself)."
        })
final class CompletionCommand implements Runnable {
    /** One script serves both: picocli's bash script turns on zsh's bash-completion emulation when zsh sources it. */
    enum Shell {
        bash,
        zsh
    }

    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "SHELL", description = "bash or zsh.")
    Shell shell;

    @Override
    public void run() {
        CommandLine root = spec.root().commandLine();
        String executable = Invocation.ofCommandName(root.getCommandName()).executable();
        spec.commandLine().getOut().print(AutoComplete.bash(executable, root));
    }
}
