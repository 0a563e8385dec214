package io.lbk8s.testkit.net;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;

/**
 * Who owns which network: one file per network, {@code /run/lbk8s-testnet/<id>.pid}, written before
 * anything is created, so a network whose owner died can be recognised and removed. A pid alone could
 * be reused by an unrelated process, so the file also records the owner's start time.
 */
final class Owners {

    static final Path DIRECTORY = Path.of("/run/lbk8s-testnet");
    private static final String SUFFIX = ".pid";

    /** A FileLock is per JVM; this keeps two threads of one JVM apart too. */
    private static final ReentrantLock IN_PROCESS = new ReentrantLock();

    private Owners() {}

    record Owner(long pid, long startTicks, int octet) {

        boolean alive() {
            return Owners.startTicks(pid).map(ticks -> ticks == startTicks).orElse(false);
        }

        static Owner current(int octet) {
            long pid = ProcessHandle.current().pid();
            return new Owner(pid, Owners.startTicks(pid).orElseThrow(), octet);
        }
    }

    /**
     * Held while a network is being created or stale ones removed, across processes, so that two
     * creators cannot pick the same subnet and a cleaner cannot see a half-built network.
     */
    static AutoCloseable lock() throws IOException {
        IN_PROCESS.lock();
        try {
            Files.createDirectories(DIRECTORY);
            FileChannel channel =
                    FileChannel.open(DIRECTORY.resolve(".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock lock = channel.lock();
            return () -> {
                try (channel) {
                    lock.release();
                } finally {
                    IN_PROCESS.unlock();
                }
            };
        } catch (IOException | RuntimeException e) {
            IN_PROCESS.unlock();
            throw e;
        }
    }

    static void write(String id, Owner owner) throws IOException {
        Files.createDirectories(DIRECTORY);
        Files.writeString(
                file(id), "pid=" + owner.pid() + "\nstart=" + owner.startTicks() + "\noctet=" + owner.octet() + "\n");
    }

    static Optional<Owner> read(String id) {
        try {
            Map<String, String> fields = new HashMap<>();
            for (String line : Files.readAllLines(file(id))) {
                int eq = line.indexOf('=');
                if (eq > 0) {
                    fields.put(
                            line.substring(0, eq).strip(),
                            line.substring(eq + 1).strip());
                }
            }
            return Optional.of(new Owner(
                    Long.parseLong(fields.get("pid")),
                    Long.parseLong(fields.get("start")),
                    Integer.parseInt(fields.get("octet"))));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException | RuntimeException e) {
            return Optional.empty(); // unreadable counts as no owner: the network is stale
        }
    }

    static void delete(String id) {
        try {
            Files.deleteIfExists(file(id));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Ids that have an owner file, whether the owner lives or not. */
    static List<String> ids() {
        if (!Files.isDirectory(DIRECTORY)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(DIRECTORY)) {
            return files.map(p -> p.getFileName().toString())
                    .filter(name -> name.endsWith(SUFFIX))
                    .map(name -> name.substring(0, name.length() - SUFFIX.length()))
                    .filter(id -> Names.ID.matcher(id).matches())
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Path file(String id) {
        return DIRECTORY.resolve(id + SUFFIX);
    }

    /**
     * Field 22 of /proc/PID/stat: start time in clock ticks since boot; empty if no such process, or if
     * it is a zombie (dead, only not yet reaped by its parent).
     */
    static Optional<Long> startTicks(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            // The command name (field 2) may contain spaces and parentheses; fields after the last ')' are plain.
            String[] rest = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            if (rest[0].equals("Z")) {
                return Optional.empty();
            }
            return Optional.of(Long.parseLong(rest[19]));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
