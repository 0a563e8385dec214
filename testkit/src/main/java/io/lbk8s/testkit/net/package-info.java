/**
 * A reusable layer-2 test LAN of Linux network namespaces, for the speaker's end-to-end tests, the
 * {@code lbk8s demo} command and benchmarks. Test support only: it never ships.
 *
 * <h2>Topology</h2>
 * One network has a random id of four hex digits (here {@code ab12}) in every name, and a third IPv4
 * octet X chosen so that {@code 198.18.X.0/24} overlaps no route or address of the host and no other
 * live network.
 *
 * <pre>
 *  namespace lbk8s-ab12-node-1     eth0 02:1b:8a:00:00:01  198.18.X.11/24   fd00:1b8:X::11/64
 *  namespace lbk8s-ab12-node-2     eth0 02:1b:8a:00:00:02  198.18.X.12/24   fd00:1b8:X::12/64
 *  ... node-N                      eth0 02:1b:8a:00:00:0N  198.18.X.(10+N)  fd00:1b8:X::(10+N)
 *  namespace lbk8s-ab12-client     eth0 02:1b:8a:00:00:c1  198.18.X.100/24  fd00:1b8:X::100/64
 *  host namespace                  lbk8sab12h 02:1b:8a:00:00:fe  198.18.X.254/24 (IPv6 disabled)
 *
 *  namespace lbk8s-ab12-br: bridge br0 (02:1b:8a:00:00:b0), ports node-1..node-N, client, host
 *      (port MACs 02:1b:8a:00:01:..), STP off, MLD snooping on, the bridge itself is MLD querier
 *
 *  pools (on no interface): 198.18.X.200-198.18.X.250   fd00:1b8:X::200-fd00:1b8:X::250
 *
 *  with TestNetwork.router() (BGP mode):
 *  namespace lbk8s-ab12-router     eth0 02:1b:8a:00:00:a1  198.18.X.1/24    fd00:1b8:X::1/64   (bridge port "router")
 *                                  eth1 02:1b:8a:00:00:a2  198.19.X.1/24    fd00:1b9:X::1/64   forwarding on
 *  namespace lbk8s-ab12-remote     eth0 02:1b:8a:00:00:c2  198.19.X.100/24  fd00:1b9:X::100/64 default via the router
 *  every node: 198.19.X.0/24 via 198.18.X.1, fd00:1b9:X::/64 via fd00:1b8:X::1
 * </pre>
 *
 * <ul>
 *   <li>Every veth pair is created with both ends straight in their namespaces; the only thing on
 *   the host is the host leg {@code lbk8s<id>h}, whose peer is in the bridge namespace, so it
 *   disappears with it. The host gets a connected route for {@code 198.18.X.0/24} through it, and
 *   nothing else.</li>
 *   <li>Node and client namespaces: no router solicitations, no RA, no DAD ({@code nodad}),
 *   {@code keep_addr_on_down=1} so a link flap keeps the IPv6 addresses.</li>
 *   <li>MLD snooping with a querier behaves like a snooping switch: after the querier's 1 s start-up
 *   delay, multicast to a group no port reported is no longer flooded, so a solicitation for a VIP
 *   reaches a node only if it joined the VIP's solicited-node group (a packet-socket membership alone
 *   sends no MLD report). {@link io.lbk8s.testkit.net.TestNetwork#create(int)} returns only once
 *   the bridge filters. Without a querier the Linux bridge floods everything and would hide a
 *   missing join.</li>
 *   <li>kube-proxy stand-in: in each node, table {@code inet lbk8s-kube-proxy}, chain
 *   {@code prerouting} (nat) DNATs TCP port 80 of the whole IPv4 and IPv6 pool to that node's own
 *   address, port 8080. A real kube-proxy only DNATs assigned addresses; the pool is the stand-in.
 *   Its empty {@code input} chain is where {@code blockService} puts a reject rule.</li>
 *   <li>The upstream router runs FRR, BIRD or GoBGP, one at a time ({@link io.lbk8s.testkit.net.UpstreamRouter#start});
 *   their routes reach its FIB (zebra, BIRD's kernel protocol, or for GoBGP the harness's copy of its RIB), and the
 *   remote client's packets to a pool address go to a node's MAC with the pool address as destination, where the
 *   kube-proxy stand-in DNATs them exactly as for a client on the LAN. The multipath hash includes ports, so separate
 *   connections spread over ECMP next hops.</li>
 *   <li>Backend per node: socat on {@code <node address>:8080} (IPv4 and IPv6) answering
 *   {@code HTTP/1.0 200 OK} with body {@code node-N\n}; logs in {@code logDirectory()}.</li>
 * </ul>
 *
 * <h2>Lifecycle</h2>
 * {@code create} writes {@code /run/lbk8s-testnet/<id>.pid} (pid, start time, octet) before it
 * creates anything and removes stale networks first; {@code close()} stops the processes it started
 * (SIGTERM, 2 s, SIGKILL for the tree), SIGKILLs anything else left in its namespaces, deletes the
 * host leg and the namespaces and checks that nothing of its id is left. A JVM shutdown hook runs
 * {@code close()}; after a SIGKILL of the JVM, {@code removeStale()} (or the next {@code create})
 * removes the network because its owner is dead.
 *
 * <h2>Rules it keeps</h2>
 * Traffic only goes to addresses in its own namespaces and to the host leg; every wait is bounded;
 * commands are run with absolute paths, {@code LC_ALL=C} and no proxy variables.
 */
package io.lbk8s.testkit.net;
