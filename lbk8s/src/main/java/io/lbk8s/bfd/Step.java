package io.lbk8s.bfd;

import java.util.List;

/**
 * The result of one event: the session's new variables, the packets to send now (in order), and when the
 * shell must fire {@link BfdEvent.TimerFired} next ({@link Long#MAX_VALUE}: only a packet or a stop can wake it).
 */
public record Step(SessionVariables variables, List<BfdPacket> send, long nextDeadlineNanos) {

    public Step {
        send = List.copyOf(send);
    }
}
