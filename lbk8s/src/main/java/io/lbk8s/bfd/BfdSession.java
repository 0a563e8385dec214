package io.lbk8s.bfd;

/** One watched peer, from {@link BfdSessions#watch}. */
public interface BfdSession extends AutoCloseable {

    BfdState state();

    /** Why the session last left Up (or NONE), as the peer is told too. */
    Diagnostic diagnostic();

    /** Sends AdminDown once, so the peer stops expecting us at once, and forgets the session. No more callbacks. */
    @Override
    void close();
}
