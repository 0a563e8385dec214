package io.lbk8s.testkit.net;

/**
 * Run in a child JVM by {@link TestNetworkLifecycleTest}: creates a 1-node network, prints
 * {@code READY <id>}, then waits to be killed with SIGKILL, which leaves the network stale.
 */
public final class StaleNetworkOwner {

    private StaleNetworkOwner() {}

    public static void main(String[] args) throws Exception {
        TestNetwork network = TestNetwork.create(1);
        System.out.println("READY " + network.id());
        System.out.flush();
        Thread.sleep(60_000); // bounded: the test kills it long before
        network.close();
    }
}
