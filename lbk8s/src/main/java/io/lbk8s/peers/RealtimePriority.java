package io.lbk8s.peers;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Real-time scheduling (SCHED_FIFO) for the calling thread, through {@code sched_setscheduler(2)}: a failure
 * detector starved of CPU misses its own heartbeats and gets its node declared dead, which is what makes detectors
 * flap under load (Lifeguard; JGroups measured here flapped at 200 % CPU load and never under SCHED_FIFO). It needs
 * CAP_SYS_NICE (or an RLIMIT_RTPRIO); without it the thread runs as before and the caller is told why.
 */
final class RealtimePriority {
    private static final int SCHED_FIFO = 1;
    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final int PRIO_PROCESS = 0;
    private static final MethodHandle SCHED_SETSCHEDULER = LINKER.downcallHandle(
            LINKER.defaultLookup().find("sched_setscheduler").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS),
            Linker.Option.captureCallState("errno"));
    private static final MethodHandle SETPRIORITY = LINKER.downcallHandle(
            LINKER.defaultLookup().find("setpriority").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT),
            Linker.Option.captureCallState("errno"));

    private RealtimePriority() {}

    /** Puts the calling thread (pid 0 means the caller's thread on Linux) under SCHED_FIFO; empty on success, else why not. */
    static Optional<String> fifo(int priority) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALL_STATE);
            MemorySegment param = arena.allocate(JAVA_INT);
            param.set(JAVA_INT, 0, priority);
            int result = (int) SCHED_SETSCHEDULER.invokeExact(state, 0, SCHED_FIFO, param);
            if (result == 0) {
                return Optional.empty();
            }
            int errno = (int) ERRNO.get(state, 0L);
            return Optional.of(
                    errno == 1
                            ? "not permitted (the speaker needs CAP_SYS_NICE)"
                            : "sched_setscheduler failed with errno " + errno);
        } catch (Throwable t) {
            return Optional.of("sched_setscheduler is not available: " + t.getMessage());
        }
    }

    /**
     * Gives every thread of this process (Linux schedules threads, so each one: the JVM's own included) the nice value
     * {@code nice}; threads started later inherit it from the thread that starts them. Empty on success, else why not.
     */
    static Optional<String> niceWholeProcess(int nice) {
        List<Path> tasks;
        try (var listing = Files.list(Path.of("/proc/self/task"))) {
            tasks = listing.toList();
        } catch (IOException e) {
            return Optional.of("cannot list this process's threads: " + e.getMessage());
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALL_STATE);
            for (Path task : tasks) {
                int tid = Integer.parseInt(task.getFileName().toString());
                if ((int) SETPRIORITY.invokeExact(state, PRIO_PROCESS, tid, nice) != 0) {
                    int errno = (int) ERRNO.get(state, 0L);
                    if (errno == 3) {
                        continue; // the thread ended meanwhile
                    }
                    return Optional.of(
                            errno == 13 || errno == 1
                                    ? "not permitted (the speaker needs CAP_SYS_NICE)"
                                    : "setpriority failed with errno " + errno);
                }
            }
            return Optional.empty();
        } catch (Throwable t) {
            return Optional.of("setpriority is not available: " + t.getMessage());
        }
    }
}
