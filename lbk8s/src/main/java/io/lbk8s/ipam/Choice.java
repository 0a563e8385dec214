package io.lbk8s.ipam;

import io.lbk8s.address.IpAddress;
import java.util.List;

/** What the allocator would give a Service, before it takes it: addresses from one pool, or why nothing. */
sealed interface Choice {

    record Chosen(PoolState pool, List<IpAddress> ips) implements Choice {}

    record Refused(Outcome.Failed failure) implements Choice {}
}
