package io.lbk8s.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine;
import picocli.CommandLine.Command;

@Command(
        name = "version",
        mixinStandardHelpOptions = true,
        versionProvider = VersionCommand.Provider.class,
        description = "Print the lbk8s version.")
final class VersionCommand implements Runnable {

    static String version() {
        try (InputStream in = VersionCommand.class.getResourceAsStream("version.properties")) {
            Properties properties = new Properties();
            if (in != null) {
                properties.load(in);
            }
            return properties.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
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
