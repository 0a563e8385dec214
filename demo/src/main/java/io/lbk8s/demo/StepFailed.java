package io.lbk8s.demo;

/** A step did not see what it waited for; the demo stops, says what, and removes the sandbox. */
final class StepFailed extends RuntimeException {
    StepFailed(String message) {
        super(message);
    }
}
