package io.lbk8s.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import picocli.AutoComplete;
import picocli.CommandLine;

/**
 * kubectl's completion of a plugin (kubectl 1.26 and later): for {@code kubectl lbk8s <TAB>}, kubectl runs {@code
 * kubectl_complete-lbk8s} with the words typed after {@code kubectl lbk8s}, the last one the word being completed, and
 * reads the answer of a Cobra program's {@code __complete}: one candidate a line, then {@code :DIRECTIVE}. The
 * candidates are picocli's, the same as the bash and zsh script's.
 */
final class KubectlCompletion {
    /** The executable kubectl looks for on PATH; {@code lbk8s __complete WORDS...} answers the same. */
    static final String EXECUTABLE = "kubectl_complete-lbk8s";

    static final String COMMAND = "__complete";
    /** Cobra's ShellCompDirectiveNoFileComp: no file names when lbk8s offers nothing. */
    private static final int NO_FILE_NAMES = 4;

    private KubectlCompletion() {}

    /** The whole words that may replace the last one of {@code words}, which is being typed (empty: a new word). */
    static List<String> candidates(CommandLine root, List<String> words) {
        List<String> args = words.isEmpty() ? List.of("") : words;
        String typed = args.getLast();
        List<CharSequence> rests = new ArrayList<>();
        AutoComplete.complete(
                root.getCommandSpec(),
                args.toArray(String[]::new),
                args.size() - 1,
                typed.length(),
                String.join(" ", args).length(),
                rests);
        return rests.stream().map(rest -> typed + rest).distinct().sorted().toList();
    }

    static int print(CommandLine root, List<String> words, PrintWriter out) {
        candidates(root, words).forEach(out::println);
        out.println(":" + NO_FILE_NAMES);
        out.flush();
        return 0;
    }
}
