package io.lbk8s.ipam;

/** The result of asking the allocator for a Service's addresses. */
public sealed interface Outcome {

    /** The Service holds these addresses (newly taken or kept). */
    record Assigned(Assignment assignment) implements Outcome {}

    /** Nothing could be given; {@code message} is a sentence for the user, e.g. in an AllocationFailed event. */
    record Failed(FailureReason reason, String message) implements Outcome {}
}
