package io.lbk8s.demo;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs a short local command (ip ... list) with a time limit; its stdout's lines, none if it failed. */
final class Commands {
    private Commands() {}

    static List<String> lines(String... command) {
        try {
            Process process =
                    new ProcessBuilder(command).redirectErrorStream(true).start();
            process.getOutputStream().close();
            // Small outputs only: reading to the end before waiting cannot block on a full pipe.
            byte[] out = process.getInputStream().readNBytes(1 << 20);
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return List.of();
            }
            return process.exitValue() == 0
                    ? new String(out, StandardCharsets.UTF_8).lines().toList()
                    : List.of();
        } catch (IOException e) {
            return List.of();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of();
        }
    }
}
