package io.lbk8s.testkit;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;

/**
 * An in-memory Kubernetes API server for tests: fabric8's mock server in CRUD mode with
 * {@link FixedCrudDispatcher}, serving plain HTTP. Start it with {@link #start()} (loopback, random
 * port) or {@link #start(InetAddress, int)}; talk to it with {@link #client()}, or point kubectl or
 * another process at it with {@link #writeKubeconfig(Path)}.
 */
public final class TestApiServer implements ApiServer {

    /** Keeps MockWebServer's per-request INFO logging (java.util.logging, to stderr) quiet. */
    private static final java.util.logging.Logger MOCK_WEB_SERVER_LOG =
            java.util.logging.Logger.getLogger(MockWebServer.class.getName());

    private static final int RECENT_REQUESTS = 500;

    private final KubernetesMockServer server;
    private final FixedCrudDispatcher dispatcher;
    private final InetAddress address;
    private final String url;
    private final Thread drainer;
    private final Deque<String> recent = new ArrayDeque<>();
    private volatile java.io.Writer requestLog;
    private final List<KubernetesClient> clients = new ArrayList<>();
    private KubernetesClient client;
    private volatile boolean closed;

    @SuppressWarnings("deprecation") // the mock's Context wants fabric8's mapper, as KubernetesMockServer uses
    private TestApiServer(InetAddress address, int port, boolean stock) {
        MOCK_WEB_SERVER_LOG.setLevel(Level.WARNING);
        containVertxCache();
        this.address = address;
        Dispatcher d;
        if (stock) {
            this.dispatcher = null;
            d = new KubernetesCrudDispatcher();
        } else {
            this.dispatcher = new FixedCrudDispatcher();
            d = dispatcher;
        }
        this.server = new KubernetesMockServer(
                new Context(Serialization.jsonMapper()), new MockWebServer(), new HashMap<>(), d, false);
        server.start(address, port);
        // A wildcard bind address is not something to connect to; advertise loopback instead.
        String host = address.isAnyLocalAddress()
                ? (address instanceof Inet6Address ? "[::1]" : "127.0.0.1")
                : address instanceof Inet6Address ? "[" + address.getHostAddress() + "]" : address.getHostAddress();
        this.url = "http://" + host + ":" + server.getPort();
        if (dispatcher != null) {
            dispatcher.setServerAddress(host + ":" + server.getPort());
        }
        this.drainer = Thread.ofPlatform()
                .daemon()
                .name("test-api-server-requests-" + server.getPort())
                .start(this::drainRequests);
    }

    /** Starts a server on the loopback address and a random free port. */
    public static TestApiServer start() {
        return start(InetAddress.getLoopbackAddress(), 0);
    }

    /** Starts a server on the given address and port (0 = random free port), plain HTTP. */
    public static TestApiServer start(InetAddress address, int port) {
        return new TestApiServer(address, port, Boolean.getBoolean("lbk8s.testkit.stock"));
    }

    /** For comparison only: fabric8's unmodified CRUD dispatcher, with none of the fixes. */
    static TestApiServer startStock() {
        return new TestApiServer(InetAddress.getLoopbackAddress(), 0, true);
    }

    /** Base URL, e.g. {@code http://127.0.0.1:41234} (no trailing slash). */
    @Override
    public String url() {
        return url;
    }

    public InetAddress address() {
        return address;
    }

    public int port() {
        return server.getPort();
    }

    /** The dispatcher (null only for the stock comparison server). */
    public FixedCrudDispatcher dispatcher() {
        return dispatcher;
    }

    /**
     * A client configuration for this server: plain HTTP, namespace "default", no kubeconfig or
     * environment auto-configuration, short timeouts, no request retries.
     */
    @Override
    public Config config() {
        return new ConfigBuilder(Config.empty())
                .withMasterUrl(url + "/")
                .withNamespace("default")
                .withHttp2Disable(true)
                .withTrustCerts(true)
                .withConnectionTimeout(5_000)
                .withRequestTimeout(10_000)
                .withUploadRequestTimeout(10_000)
                .withRequestRetryBackoffLimit(0)
                .withRequestRetryBackoffInterval(100)
                .withWatchReconnectInterval(200)
                .withWatchReconnectLimit(-1)
                .withLoggingInterval(0)
                .build();
    }

    /** A shared client for this server, closed by {@link #close()}. */
    @Override
    public synchronized KubernetesClient client() {
        if (client == null) {
            client = newClient();
        }
        return client;
    }

    /** A new client for this server; closed by {@link #close()} unless the caller closes it first. */
    @Override
    public synchronized KubernetesClient newClient() {
        return newClient(new KubernetesSerialization());
    }

    /** A new client for this server that decodes with {@code serialization}; closed as {@link #newClient()}'s. */
    @Override
    public synchronized KubernetesClient newClient(KubernetesSerialization serialization) {
        KubernetesClient c = new KubernetesClientBuilder()
                .withConfig(config())
                .withKubernetesSerialization(serialization)
                .build();
        clients.add(c);
        return c;
    }

    /**
     * Creates every CustomResourceDefinition found in the YAML or JSON files below {@code dir} (other kinds are
     * skipped with a line on stderr) and returns how many were created.
     */
    @Override
    public int createCrds(Path dir) throws IOException {
        List<Path> files = ApiServer.manifests(dir);
        int created = 0;
        var crds = client().apiextensions().v1().customResourceDefinitions();
        for (Path file : files) {
            String text = Files.readString(file, StandardCharsets.UTF_8);
            try (InputStream in = new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8))) {
                for (var item : client().load(in).items()) {
                    if (!"CustomResourceDefinition".equals(item.getKind())) {
                        System.err.println("skipping " + item.getKind() + " "
                                + item.getMetadata().getName() + " in " + file);
                        continue;
                    }
                    var crd = io.fabric8.kubernetes.client.utils.Serialization.unmarshal(
                            io.fabric8.kubernetes.client.utils.Serialization.asJson(item),
                            io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition.class);
                    crds.resource(crd).create();
                    created++;
                }
            }
        }
        return created;
    }

    /**
     * Creates the objects of a YAML or JSON file (several documents allowed), in their order, as {@code kubectl
     * create -f} would; objects with a status get it written too, since a create ignores it. Returns how many.
     */
    public int createObjects(Path file) throws IOException {
        int created = 0;
        try (InputStream in = Files.newInputStream(file)) {
            for (HasMetadata item : client().load(in).items()) {
                HasMetadata made = client().resource(item).create();
                if (hasStatus(item)) {
                    item.getMetadata().setResourceVersion(made.getMetadata().getResourceVersion());
                    client().resource(item).updateStatus();
                }
                created++;
            }
        }
        return created;
    }

    private static boolean hasStatus(HasMetadata item) {
        var tree = Serialization.jsonMapper().valueToTree(item);
        return tree.has("status") && !tree.get("status").isEmpty();
    }

    /** Writes a kubeconfig for this server (usable by kubectl and {@code Config.fromKubeconfig}); returns file. */
    @Override
    public Path writeKubeconfig(Path file) {
        return writeKubeconfig(file, url);
    }

    @Override
    public Path writeKubeconfigThroughProxy(Path file, int port) {
        return writeKubeconfig(file, "http://127.0.0.1:" + port);
    }

    /** Writes a kubeconfig for an API server at {@code url}: this one behind a proxy, say. */
    public static Path writeKubeconfig(Path file, String url) {
        String yaml = """
        apiVersion: v1
        kind: Config
        clusters:
        - name: lbk8s-test
          cluster:
            server: %s
        contexts:
        - name: lbk8s-test
          context:
            cluster: lbk8s-test
            namespace: default
            user: lbk8s-test
        current-context: lbk8s-test
        users:
        - name: lbk8s-test
          user:
            token: lbk8s-testkit
        preferences: {}
        """.formatted(url);
        try {
            Path absolute = file.toAbsolutePath();
            if (absolute.getParent() != null) {
                Files.createDirectories(absolute.getParent());
            }
            Path tmp = Files.createTempFile(absolute.getParent(), ".kubeconfig", ".tmp");
            Files.writeString(tmp, yaml, StandardCharsets.UTF_8);
            Files.move(tmp, absolute, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return absolute;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Deletes every stored object (CRDs included), without emitting watch events, so that one server
     * can serve several tests. Allocated cluster IPs and node ports are not reused.
     */
    public void reset() {
        if (dispatcher != null) {
            dispatcher.reset();
        }
    }

    /** The last requests served (request lines, oldest first), for debugging tests. */
    public List<String> recentRequests() {
        synchronized (recent) {
            return List.copyOf(recent);
        }
    }

    /**
     * Appends every request line served from now on ({@code METHOD path}) to {@code file}, so that another
     * process (a benchmark counting writes) can read what this one served.
     */
    public void logRequestsTo(Path file) throws java.io.IOException {
        requestLog = Files.newBufferedWriter(
                file,
                StandardCharsets.UTF_8,
                java.nio.file.StandardOpenOption.CREATE,
                java.nio.file.StandardOpenOption.APPEND);
    }

    /** Total number of requests served. */
    public int requestCount() {
        return server.getRequestCount();
    }

    private void drainRequests() {
        // MockWebServer queues every request forever; keep only the most recent ones.
        while (!closed) {
            try {
                RecordedRequest r = server.takeRequest(500, TimeUnit.MILLISECONDS);
                if (r != null) {
                    String line = r.getMethod() + " " + r.getPath();
                    synchronized (recent) {
                        recent.addLast(line);
                        while (recent.size() > RECENT_REQUESTS) {
                            recent.removeFirst();
                        }
                    }
                    java.io.Writer log = requestLog;
                    if (log != null) {
                        try {
                            log.write(line + "\n");
                            log.flush();
                        } catch (java.io.IOException e) {
                            requestLog = null;
                        }
                    }
                }
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                // keep draining
            }
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        synchronized (this) {
            clients.forEach(c -> {
                try {
                    c.close();
                } catch (RuntimeException ignored) {
                    // closing anyway
                }
            });
            clients.clear();
        }
        try {
            server.shutdown();
        } finally {
            drainer.interrupt();
        }
    }

    private static Path vertxCacheDir;

    /**
     * vert.x (behind MockWebServer) keeps a file cache under {@code vertx.cacheDirBase}, by default in
     * java.io.tmpdir. Unless the caller chose a location, use one private temp dir per JVM, deleted at exit.
     */
    private static synchronized void containVertxCache() {
        if (System.getProperty("vertx.disableFileCPResolving") == null) {
            System.setProperty("vertx.disableFileCPResolving", "true");
        }
        if (vertxCacheDir != null || System.getProperty("vertx.cacheDirBase") != null) {
            return;
        }
        try {
            Path dir = Files.createTempDirectory("lbk8s-testkit-vertx-");
            System.setProperty("vertx.cacheDirBase", dir.toString());
            vertxCacheDir = dir;
            Runtime.getRuntime()
                    .addShutdownHook(new Thread(() -> TempFiles.deleteRecursively(dir), "lbk8s-testkit-vertx-cleanup"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
