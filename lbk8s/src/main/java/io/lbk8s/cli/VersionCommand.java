package io.lbk8s.cli;

import io.lbk8s.version.BuildVersion;
import picocli.CommandLine;
import picocli.CommandLine.Command;

@Command(
        name = "version",
        mixinStandardHelpOptions = true,
        versionProvider = VersionCommand.Provider.class,
        description = "Print the lbk8s version.")
final class VersionCommand implements Runnable {

    static String version() {
        return BuildVersion.read().orElse("unknown");
    }

    @Override
    public void run() {
        System.out.println("lbk8s " + version() + " (Java " + Runtime.version() + ")");
    }

    static final class Provider implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"lbk8s " + version()};
        }
    }
}
