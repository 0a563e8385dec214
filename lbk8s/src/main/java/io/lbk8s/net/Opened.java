package io.lbk8s.net;

/** Sockets opened one after another, of which a later one failed to open. */
final class Opened {
    private Opened() {}

    /** Closes those of {@code opened} that were (non-null), keeping what goes wrong on {@code failure}. */
    static void closeAfter(Throwable failure, AutoCloseable... opened) {
        for (AutoCloseable resource : opened) {
            if (resource == null) {
                continue;
            }
            try {
                resource.close();
            } catch (Exception e) {
                failure.addSuppressed(e);
            }
        }
    }
}
