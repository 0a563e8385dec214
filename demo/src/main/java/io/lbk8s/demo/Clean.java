package io.lbk8s.demo;

import io.lbk8s.testkit.TempFiles;
import io.lbk8s.testkit.net.TestNetwork;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * {@code demo/run --clean}: what a demo killed with SIGKILL could not remove itself. A demo that still runs (with
 * --keep) is left alone: it is stopped with Ctrl-C or SIGTERM, and then removes its own sandbox.
 */
final class Clean {
    private Clean() {}

    static int run() {
        int networks = TestNetwork.removeStale();
        System.out.println("removed " + networks + " sandbox network(s) whose demo or test had died");
        Path temp = Path.of(System.getProperty("java.io.tmpdir"));
        try (Stream<Path> dirs = Files.list(temp)) {
            for (Path dir : dirs.filter(d -> d.getFileName().toString().startsWith(DemoMain.TEMP_PREFIX))
                    .toList()) {
                Optional<Long> pid = ownerPid(dir);
                if (pid.flatMap(ProcessHandle::of).map(ProcessHandle::isAlive).orElse(false)) {
                    System.out.println("demo " + pid.get() + " is running (" + dir
                            + "): stop it with Ctrl-C or kill -TERM " + pid.get());
                } else {
                    TempFiles.deleteRecursively(dir);
                    System.out.println((Files.exists(dir) ? "could not remove " : "removed ") + dir);
                }
            }
        } catch (IOException e) {
            System.err.println("demo/run --clean: cannot list " + temp + ": " + e.getMessage());
            return 1;
        }
        return 0;
    }

    /** lbk8s-demo-PID-RANDOM. */
    private static Optional<Long> ownerPid(Path dir) {
        List<String> parts = List.of(dir.getFileName()
                .toString()
                .substring(DemoMain.TEMP_PREFIX.length())
                .split("-"));
        try {
            return Optional.of(Long.parseLong(parts.getFirst()));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
