package io.lbk8s.install;

import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetStatus;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatus;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;

/** Whether the controller Deployment and the speaker DaemonSet have rolled out, read as kubectl rollout status does. */
public final class Rollout {
    private Rollout() {}

    public record Progress(String object, boolean done, String text) {
        @Override
        public String toString() {
            return object + ": " + text;
        }
    }

    /** Pure: available once the newest generation is observed and every replica is updated and available. */
    public static Progress of(Deployment deployment) {
        String name = "deployment/" + deployment.getMetadata().getName();
        int wanted = Optional.ofNullable(deployment.getSpec())
                .map(s -> s.getReplicas())
                .orElse(1);
        DeploymentStatus status = Optional.ofNullable(deployment.getStatus()).orElseGet(DeploymentStatus::new);
        boolean observed = number(status.getObservedGeneration())
                >= number(deployment.getMetadata().getGeneration());
        int updated = number(status.getUpdatedReplicas()).intValue();
        int available = number(status.getAvailableReplicas()).intValue();
        boolean done = observed && updated >= wanted && available >= wanted;
        return new Progress(
                name,
                done,
                available + " of " + wanted + " available"
                        + (done ? "" : observed ? "" : " (new spec not yet observed)"));
    }

    /** Pure: ready once every scheduled speaker runs the newest spec and is ready; zero nodes scheduled is not ready. */
    public static Progress of(DaemonSet daemonSet) {
        String name = "daemonset/" + daemonSet.getMetadata().getName();
        DaemonSetStatus status = Optional.ofNullable(daemonSet.getStatus()).orElseGet(DaemonSetStatus::new);
        boolean observed = number(status.getObservedGeneration())
                >= number(daemonSet.getMetadata().getGeneration());
        int desired = number(status.getDesiredNumberScheduled()).intValue();
        int ready = number(status.getNumberReady()).intValue();
        int updated = number(status.getUpdatedNumberScheduled()).intValue();
        boolean done = observed && desired > 0 && ready >= desired && updated >= desired;
        String text = desired == 0 ? "no node runs a speaker yet" : ready + " of " + desired + " nodes ready";
        return new Progress(name, done, text);
    }

    private static Long number(Number n) {
        return n == null ? 0L : n.longValue();
    }

    /** Sleeps between polls; tests pass one that does not. */
    public interface Sleeper {
        void sleep(Duration d) throws InterruptedException;
    }

    /**
     * Polls until everything is done or the timeout passes, printing each line of progress once when it changes.
     * Returns the last progress seen.
     */
    public static List<Progress> await(
            Supplier<List<Progress>> poll, Duration timeout, Duration interval, Sleeper sleeper, Consumer<String> say)
            throws InterruptedException {
        long polls = Math.max(1, timeout.toMillis() / Math.max(1, interval.toMillis()));
        List<Progress> last = List.of();
        for (long i = 0; ; i++) {
            List<Progress> now = poll.get();
            for (Progress p : now) {
                if (last.stream().noneMatch(l -> Objects.equals(l, p))) {
                    say.accept("waiting: " + p);
                }
            }
            last = now;
            if (now.stream().allMatch(Progress::done) || i >= polls) {
                return now;
            }
            sleeper.sleep(interval);
        }
    }
}
