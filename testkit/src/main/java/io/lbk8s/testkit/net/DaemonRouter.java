package io.lbk8s.testkit.net;

import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;

/**
 * What the three {@link BgpRouter}s share: their daemons in one namespace, the configuration they were started with,
 * and a close that stops them once.
 */
abstract sealed class DaemonRouter permits FrrRouter, BirdRouter, GobgpRouter {

    private final RouterKind kind;
    /** The implementation's own spelling of its name, for {@link #toString}. */
    private final String name;

    final RouterDaemons daemons;
    final RouterConfig config;
    private volatile boolean closed;

    DaemonRouter(RouterKind kind, String name, TestNetwork network, String namespace, RouterConfig config) {
        this.kind = kind;
        this.name = name;
        this.daemons = RouterDaemons.in(network, namespace, kind);
        this.config = config;
    }

    /** {@code router} once {@code start} has started its daemons; closed, so that none is left, when it fails. */
    static <R extends DaemonRouter> R started(R router, Consumer<R> start) {
        try {
            start.accept(router);
            return router;
        } catch (RuntimeException e) {
            router.close();
            throw e;
        }
    }

    public RouterKind kind() {
        return kind;
    }

    public String namespace() {
        return daemons.namespace();
    }

    public RouterConfig config() {
        return config;
    }

    public List<Path> logs() {
        return daemons.logs();
    }

    public boolean isClosed() {
        return closed;
    }

    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        stop();
    }

    /** Stops the daemons and removes what they left; {@link #close} calls it once. */
    abstract void stop();

    @Override
    public String toString() {
        return name + "[" + namespace() + " AS" + config.asn() + "]";
    }
}
