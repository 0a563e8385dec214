package io.lbk8s.net;

/**
 * The state of an interface now, as {@link Links#state} reads it with one ioctl.
 *
 * @param up      administratively up (IFF_UP)
 * @param running up with a carrier (IFF_RUNNING); false after a carrier loss even while {@code up}
 */
public record LinkState(boolean up, boolean running) {

    /** Up and running: frames can be sent and received. */
    public boolean operational() {
        return up && running;
    }
}
