package io.lbk8s.bfd;

/** What can happen to a session: the input of {@link StateMachine#on}. */
public sealed interface BfdEvent {

    /** A packet for this session that passed {@link BfdCodec#decode} and the TTL check. */
    record Received(BfdPacket packet) implements BfdEvent {}

    /** The deadline of the last step came: a packet is due, or the peer has been silent a detection time. */
    record TimerFired() implements BfdEvent {}

    /** The BFDProfile changed: new intervals go through a Poll Sequence while Up. */
    record Reconfigured(BfdSettings settings) implements BfdEvent {}

    /** This side stops: AdminDown is sent once, so the peer goes Down at once instead of after its detection time. */
    record Stopped() implements BfdEvent {}
}
