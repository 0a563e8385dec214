package io.lbk8s.ipam;

/** The result of asking the allocator for a Service's addresses. */
public sealed interface Outcome {

    /**
     * The Service holds these addresses (newly taken or kept); {@code changed} when they differ from what it held
     * before (nothing, other addresses or another pool), so that the caller need not ask what it held.
     */
    record Assigned(Assignment assignment, boolean changed) implements Outcome {}

    /** Nothing could be given; {@code message} is a sentence for the user, e.g. in an AllocationFailed event. */
    record Failed(FailureReason reason, String message) implements Outcome {}
}
