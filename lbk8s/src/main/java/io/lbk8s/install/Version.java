package io.lbk8s.install;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** The build's version (the image tag installed by default); read from the same resource as {@code lbk8s version}. */
final class Version {
    private Version() {}

    static String current() {
        try (InputStream in = Version.class.getResourceAsStream("/io/lbk8s/cli/version.properties")) {
            Properties properties = new Properties();
            if (in != null) {
                properties.load(in);
            }
            return properties.getProperty("version", "latest");
        } catch (IOException e) {
            return "latest";
        }
    }
}
