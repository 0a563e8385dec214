package io.lbk8s.version;

import java.io.IOException;
import java.io.InputStream;
import java.util.Optional;
import java.util.Properties;

/** The version Maven wrote into version.properties at build time; empty where that resource is missing. */
public final class BuildVersion {
    private BuildVersion() {}

    public static Optional<String> read() {
        try (InputStream in = BuildVersion.class.getResourceAsStream("version.properties")) {
            if (in == null) {
                return Optional.empty();
            }
            Properties properties = new Properties();
            properties.load(in);
            return Optional.ofNullable(properties.getProperty("version"));
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
