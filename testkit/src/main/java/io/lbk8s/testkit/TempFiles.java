package io.lbk8s.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Temporary directories of the test tools, the demo and the benchmarks. */
public final class TempFiles {
    private TempFiles() {}

    /**
     * Deletes a directory tree as far as it can, never throwing: a file still held open by a dying process stays, and
     * callers that must be sure check the directory afterwards. A null or missing directory is nothing to do.
     */
    public static void deleteRecursively(Path directory) {
        if (directory == null || !Files.exists(directory)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> {
                try {
                    Files.deleteIfExists(path);
                } catch (IOException ignored) {
                    // best effort, as above
                }
            });
        } catch (IOException ignored) {
            // gone already, or unreadable: best effort
        }
    }
}
