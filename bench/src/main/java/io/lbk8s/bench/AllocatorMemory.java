package io.lbk8s.bench;

import io.lbk8s.ipam.Allocator;
import io.lbk8s.ipam.Outcome;
import io.lbk8s.service.AllocationRequest;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;

/**
 * The heap an allocator keeps per assignment: 10,000 Services (the controller's scale figure) assigned on the /16 pool,
 * the live heap measured after full collections before and after, five times over; the requests exist before the
 * first measurement, since the controller's caches own them, not the allocator. Prints the range of the five.
 * <pre>
 *   java -cp bench/target/classes:$(cat bench/target/classpath.txt) io.lbk8s.bench.AllocatorMemory
 * </pre>
 */
public final class AllocatorMemory {
    private AllocatorMemory() {}

    static final int SERVICES = 10_000;
    static final int ROUNDS = 5;

    public static void main(String[] args) {
        AllocationRequest[] requests = AllocatorBenchmark.requests(SERVICES);
        long least = Long.MAX_VALUE;
        long most = 0;
        for (int round = 0; round < ROUNDS; round++) {
            Allocator allocator = new Allocator(AllocatorBenchmark.slash16());
            long before = liveHeap();
            for (AllocationRequest r : requests) {
                if (!(allocator.assign(r) instanceof Outcome.Assigned)) {
                    throw new IllegalStateException("could not allocate");
                }
            }
            long after = liveHeap();
            if (allocator.assignedCount() != SERVICES) {
                throw new IllegalStateException("lost an assignment");
            }
            long perAssignment = (after - before) / SERVICES;
            least = Math.min(least, perAssignment);
            most = Math.max(most, perAssignment);
        }
        System.out.printf(
                "| ipam | heap per assignment, %,d Services on a /16 pool (%d rounds) | %d-%d bytes |%n",
                SERVICES, ROUNDS, least, most);
    }

    private static long liveHeap() {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return memory.getHeapMemoryUsage().getUsed();
    }
}
