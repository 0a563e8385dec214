package io.lbk8s.testkit;

import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * A WebSocket watch evaluated with {@link Selectors}, for the selectors fabric8's watch cannot
 * evaluate (set-based label selectors, field selectors on arbitrary fields). Events are queued
 * on a single thread, in the order the dispatcher produced them under its write lock.
 */
final class SelectorWatch extends WebSocketListener {

    private final String group;
    private final String plural;
    private final String namespace;
    private final List<Selectors.Requirement> labels;
    private final List<Selectors.Requirement> fields;
    private final Set<SelectorWatch> registry;
    private final Consumer<SelectorWatch> initialSync;
    private final ExecutorService sender = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "test-api-server-watch");
        t.setDaemon(true);
        return t;
    });
    private final List<Consumer<WebSocket>> pending = new ArrayList<>();
    private WebSocket socket;

    SelectorWatch(
            ResourcePath rp,
            List<Selectors.Requirement> labels,
            List<Selectors.Requirement> fields,
            Set<SelectorWatch> registry,
            Consumer<SelectorWatch> initialSync) {
        this.group = rp.group();
        this.plural = rp.plural();
        this.namespace = rp.namespace();
        this.labels = labels;
        this.fields = fields;
        this.registry = registry;
        this.initialSync = initialSync;
    }

    /** Whether an object of group/plural in namespace matches this watch. */
    boolean matches(String group, String plural, String namespace, JsonNode object) {
        if (object == null || !this.group.equals(group) || !this.plural.equals(plural)) {
            return false;
        }
        if (this.namespace != null && !this.namespace.equals(namespace)) {
            return false;
        }
        return Selectors.matchesLabels(labels, object) && Selectors.matchesFields(fields, object);
    }

    /** Called under the dispatcher's write lock. */
    void event(String type, JsonNode object) {
        ObjectNode event = JsonNodeFactory.instance.objectNode();
        event.put("type", type);
        event.set("object", object);
        queue(event.toString());
    }

    /**
     * The event a change of an object means to this watch: MODIFIED while it matches, DELETED when it stops matching
     * (or is deleted), ADDED when it starts to; nothing when it matches neither before nor after.
     */
    void change(String group, String plural, String namespace, JsonNode before, JsonNode after) {
        boolean old = matches(group, plural, namespace, before);
        boolean now = matches(group, plural, namespace, after);
        if (old && now) {
            event("MODIFIED", after);
        } else if (old) {
            event("DELETED", before);
        } else if (now) {
            event("ADDED", after);
        }
    }

    /**
     * The resourceVersion to resume from is older than the changes the server keeps: an ERROR event with 410 Gone, as
     * kube-apiserver sends, then the close; the client lists again.
     */
    void expire(String message) {
        ObjectNode status = JsonNodeFactory.instance.objectNode();
        status.put("kind", "Status");
        status.put("apiVersion", "v1");
        status.putObject("metadata");
        status.put("status", "Failure");
        status.put("message", message);
        status.put("reason", "Expired");
        status.put("code", 410);
        event("ERROR", status);
        inOrder(ws -> ws.close(1000, ""));
    }

    /** Whether this watch is on group/plural (any namespace, any selector). */
    boolean watches(String group, String plural) {
        return this.group.equals(group) && this.plural.equals(plural);
    }

    /**
     * The stream breaks in the middle of an event (a proxy's timeout, a connection reset, a load balancer in between):
     * the client receives the start of an event it cannot decode, then the close. fabric8 ends the watch with an
     * exception it does not retry by itself.
     */
    void cutMidEvent() {
        queue("{\"type\":\"MODIFIED\",\"object\":{\"kind\":\"" + plural + "\",\"metadata\":{\"na");
        inOrder(ws -> ws.close(1000, ""));
    }

    /** Sends {@code text} in order after what was queued before, or keeps it until the socket is open. */
    private void queue(String text) {
        inOrder(ws -> ws.send(text));
    }

    /** Runs {@code action} on the socket in order after what was queued before, or keeps it until the socket is open. */
    private void inOrder(Consumer<WebSocket> action) {
        synchronized (this) {
            if (socket == null) {
                pending.add(action);
                return;
            }
        }
        onSender(action);
    }

    /** Runs {@code action} on the open socket, on the sender thread, after everything queued before it. */
    private void onSender(Consumer<WebSocket> action) {
        try {
            sender.execute(() -> {
                WebSocket ws;
                synchronized (this) {
                    ws = socket;
                }
                if (ws != null) {
                    action.accept(ws);
                }
            });
        } catch (RejectedExecutionException e) {
            // closed
        }
    }

    @Override
    public void onOpen(WebSocket webSocket, Response response) {
        initialSync.accept(this); // queues ADDED events (under the write lock) before anything newer
        List<Consumer<WebSocket>> buffered;
        synchronized (this) {
            socket = webSocket;
            buffered = new ArrayList<>(pending);
            pending.clear();
        }
        buffered.forEach(this::onSender);
    }

    @Override
    public void onClosing(WebSocket webSocket, int code, String reason) {
        try {
            sender.execute(() -> webSocket.close(code, reason));
        } catch (RejectedExecutionException e) {
            // already closed
        }
        stop();
    }

    @Override
    public void onClosed(WebSocket webSocket, int code, String reason) {
        stop();
    }

    @Override
    public void onFailure(WebSocket webSocket, Throwable t, Response response) {
        stop();
    }

    void stop() {
        registry.remove(this);
        sender.shutdown();
    }
}
