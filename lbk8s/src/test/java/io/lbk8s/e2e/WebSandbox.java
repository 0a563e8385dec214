package io.lbk8s.e2e;

import io.lbk8s.testkit.net.TestClient;
import io.lbk8s.testkit.net.TestNetwork;
import io.lbk8s.testkit.sandbox.Sandbox;
import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A Sandbox started once for a test class, with the LoadBalancer Service {@code web} created, and closed after the
 * class: {@code @RegisterExtension static final WebSandbox web = new WebSandbox("failover");}.
 */
final class WebSandbox implements BeforeAllCallback, AfterAllCallback {
    private final String logName;
    private final int nodes;
    private final List<String> speakerArgs;
    private Sandbox cluster;
    private InetAddress ip;

    WebSandbox(String logName) {
        this(logName, TestNetwork.DEFAULT_NODE_COUNT, List.of());
    }

    WebSandbox(String logName, int nodes, List<String> speakerArgs) {
        this.logName = logName;
        this.nodes = nodes;
        this.speakerArgs = List.copyOf(speakerArgs);
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        E2ePrerequisites.check();
        cluster = Sandbox.start(
                Sandbox.REPO.resolve("lbk8s/target/e2e-logs/" + logName + "-" + System.currentTimeMillis()),
                nodes,
                speakerArgs);
        ip = cluster.createLoadBalancer("web");
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (cluster != null) {
            cluster.close();
        }
    }

    Sandbox cluster() {
        return cluster;
    }

    TestClient client() {
        return cluster.network.client();
    }

    /** The address of the Service {@code web}. */
    InetAddress ip() {
        return ip;
    }
}
