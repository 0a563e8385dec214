package io.lbk8s.testkit.cluster;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * kube-apiserver's own record of the requests it served (its audit log, at the Metadata level): who asked, what, and
 * what the answer was. Tests read it where they would otherwise need the server to tell them, e.g. that a role was
 * refused nothing or that a controller does not poll. Requests of {@link #QUIET_USER} are not recorded.
 */
public final class AuditLog {

    /** The user whose requests the log leaves out: the wipe between tests. */
    static final String QUIET_USER = "lbk8s-testkit-wipe";

    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** One request: a watch shows once, when its response started. */
    public record Request(String user, String verb, String path, int code) {
        public boolean refused() {
            return code == 403;
        }

        /** The HTTP method the client sent. */
        public String method() {
            return switch (verb) {
                case "create" -> "POST";
                case "update" -> "PUT";
                case "patch" -> "PATCH";
                case "delete", "deletecollection" -> "DELETE";
                default -> "GET";
            };
        }

        @Override
        public String toString() {
            return user + " " + verb + " " + path + " " + code;
        }
    }

    private AuditLog() {}

    /** kube-apiserver's flags for a log in {@code directory}. */
    static List<String> flags(Path directory) throws IOException {
        Path policy = directory.resolve("audit-policy.yaml");
        Files.writeString(policy, """
                apiVersion: audit.k8s.io/v1
                kind: Policy
                omitStages: [RequestReceived]
                rules:
                - level: None
                  users: [%s]
                - level: Metadata
                """.formatted(QUIET_USER));
        return List.of(
                "--audit-policy-file",
                policy.toString(),
                "--audit-log-path",
                file(directory).toString(),
                "--audit-log-format",
                "json",
                "--audit-log-mode",
                "blocking");
    }

    static Path file(Path directory) {
        return directory.resolve("audit.log");
    }

    /** Where the log ends now: {@link #read(Path, long)} from it gives what comes after. */
    static long end(Path directory) {
        try {
            return Files.exists(file(directory)) ? Files.size(file(directory)) : 0;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The requests recorded from byte {@code from} on, in the order they were served. */
    static List<Request> read(Path directory, long from) {
        Path log = file(directory);
        if (!Files.exists(log)) {
            return List.of();
        }
        byte[] bytes;
        try (RandomAccessFile file = new RandomAccessFile(log.toFile(), "r")) {
            long length = file.length();
            bytes = new byte[(int) Math.max(0, length - from)];
            file.seek(Math.min(from, length));
            file.readFully(bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, Request> byId = new LinkedHashMap<>();
        for (String line : new String(bytes, StandardCharsets.UTF_8).split("\n")) {
            JsonNode event;
            try {
                event = JSON.readTree(line);
            } catch (JacksonException e) {
                continue; // a line still being written
            }
            if (event == null || !event.has("auditID")) {
                continue;
            }
            byId.putIfAbsent(
                    event.path("auditID").asString(),
                    new Request(
                            event.path("user").path("username").asString(),
                            event.path("verb").asString(),
                            event.path("requestURI").asString(),
                            event.path("responseStatus").path("code").asInt()));
        }
        return new ArrayList<>(byId.values());
    }
}
