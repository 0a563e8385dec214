package io.lbk8s.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * A process's memory as /proc/PID/status tells it, in KiB: resident now, its peak, and the resident part split into
 * anonymous memory (heap, metaspace, code, thread stacks, malloc) and file pages (the jars, the runtime's modules and
 * the AOT cache mapped from disk, which the kernel can drop and share).
 */
record ProcessMemory(long rssKb, long peakKb, long anonKb, long fileKb) {
    static ProcessMemory of(long pid) throws IOException {
        Map<String, Long> kb = new HashMap<>();
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.endsWith(" kB")) {
                kb.put(
                        line.substring(0, colon),
                        Long.parseLong(
                                line.substring(colon + 1, line.length() - 3).strip()));
            }
        }
        if (!kb.containsKey("VmRSS")) {
            throw new IllegalStateException("no VmRSS for " + pid + " (a kernel thread, or gone)");
        }
        return new ProcessMemory(
                kb.get("VmRSS"),
                kb.getOrDefault("VmHWM", 0L),
                kb.getOrDefault("RssAnon", 0L),
                kb.getOrDefault("RssFile", 0L) + kb.getOrDefault("RssShmem", 0L));
    }

    /** "57 MiB (anon 41, file 16; peak 60)". */
    String describe() {
        return "%d MiB (anon %d, file %d; peak %d)"
                .formatted(rssKb / 1024, anonKb / 1024, fileKb / 1024, peakKb / 1024);
    }
}
