package io.lbk8s.reconcile;

/** What a {@link RateLimitedQueue} tells about its work, as client-go's workqueue metrics; {@link QueueMeters} exports it. */
public interface QueueMetrics {
    QueueMetrics NONE = new QueueMetrics() {
        @Override
        public void added() {}

        @Override
        public void retried() {}

        @Override
        public void waited(long nanos) {}

        @Override
        public void worked(long nanos) {}
    };

    /** A key came to wait that was not waiting already. */
    void added();

    /** A key's reconcile failed and it was put back to be tried again later. */
    void retried();

    /** How long a key waited before a reconcile took it. */
    void waited(long nanos);

    /** How long a reconcile of a key took, from taking it to done. */
    void worked(long nanos);
}
