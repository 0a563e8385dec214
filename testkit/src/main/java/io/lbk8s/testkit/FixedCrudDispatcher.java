package io.lbk8s.testkit;

import io.fabric8.kubernetes.client.server.mock.KubernetesAttributesExtractor;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.crud.AttributeSet;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.zjsonpatch.JsonPatch;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * fabric8's CRUD dispatcher, corrected where it differs from a real kube-apiserver:
 * <ul>
 * <li>status subresource semantics for built-in kinds with a status (services, nodes, pods, ...) and for CRDs that
 * declare it: writes to the main resource keep the stored status, writes to {@code /status} change only status;</li>
 * <li>optimistic concurrency: a write carrying a stale {@code metadata.resourceVersion} gets 409 Conflict;</li>
 * <li>RFC 7386 JSON merge patch, an approximate strategic merge patch and server-side apply;</li>
 * <li>JSON patch failures (e.g. a failing {@code test} op) answer 422 instead of never answering;</li>
 * <li>discovery ({@code /version}, {@code /api}, {@code /apis}, resource lists, including stored CRDs);</li>
 * <li>set-based label selectors and arbitrary field selectors on list requests;</li>
 * <li>lists asked for in chunks ({@code limit} and {@code continue}) come in key order, a chunk at a time ({@link ListPages});</li>
 * <li>cluster IP / node port allocation and defaults for created Services; CRDs get an Established status;</li>
 * <li>errors always carry a {@code Status} body, lists carry their proper {@code kind}.</li>
 * </ul>
 * All writes run under the parent's write lock, so watches see a consistent order of events.
 */
public class FixedCrudDispatcher extends KubernetesCrudDispatcher {

    private static final Logger log = LoggerFactory.getLogger(FixedCrudDispatcher.class);
    private static final ObjectMapper JSON = JsonMapper.builder().build();
    private static final ObjectMapper YAML = YAMLMapper.builder().build();
    private static final String CRD_LIST_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

    private volatile Lock writeLock;
    private volatile Lock readLock;
    private final StoreIndex index = new StoreIndex();
    /** {@link #discovery()} lists the CRDs, a scan of the whole store; kept until a CRD changes. */
    private volatile CachedDiscovery discoveryCache;

    private final java.util.concurrent.atomic.AtomicLong crdChanges = new java.util.concurrent.atomic.AtomicLong();

    private record CachedDiscovery(long crdChanges, Discovery discovery) {}

    private final Set<SelectorWatch> selectorWatches = new CopyOnWriteArraySet<>();
    private final Set<String> brokenWatches = new CopyOnWriteArraySet<>();
    private final Set<String> brokenLists = new CopyOnWriteArraySet<>();
    private final Map<String, AtomicInteger> refusedWrites = new ConcurrentHashMap<>();
    private final ServiceDefaults serviceDefaults = new ServiceDefaults();
    private final ListPages pages = new ListPages();
    /** Kept for watches that resume; a real API server's watch cache holds a few thousand changes per kind. */
    private final WatchHistory history = new WatchHistory(10_000);

    private volatile String serverAddress = "127.0.0.1:443";

    @SuppressWarnings("this-escape") // locked() only stores the lock; nothing of this class is used yet
    public FixedCrudDispatcher() {
        super();
        // The parent's read/write lock is private; its protected locked() hook hands it to us on the first write.
        super.handleDelete("/api/v1/namespaces/lbk8s-testkit-bootstrap/configmaps/none");
        if (writeLock == null) {
            throw new IllegalStateException("could not obtain the CRUD dispatcher's write lock");
        }
        history.forgetAll(
                requestResourceVersion()); // as on a real server, even the first list has a version (not 0: "any")
    }

    @Override
    protected void locked(Lock lock) {
        if (writeLock == null && lock instanceof ReentrantReadWriteLock.WriteLock) {
            writeLock = lock;
        } else if (readLock == null && lock instanceof ReentrantReadWriteLock.ReadLock) {
            readLock = lock;
        }
    }

    /** host:port announced in {@code /api}'s serverAddressByClientCIDRs. */
    void setServerAddress(String hostPort) {
        this.serverAddress = hostPort;
    }

    private <T> T exclusive(Supplier<T> body) {
        writeLock.lock();
        try {
            return body.get();
        } finally {
            writeLock.unlock();
        }
    }

    @Override
    public MockResponse dispatch(RecordedRequest request) {
        String raw = request.getPath();
        try {
            MockResponse response = route(request, raw);
            if (response == null) {
                throw new ApiException(
                        405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
            }
            return finish(response);
        } catch (ApiException e) {
            return e.response();
        } catch (JacksonException e) {
            return ApiException.badRequest("invalid JSON in request body: " + e.getOriginalMessage())
                    .response();
        } catch (RuntimeException e) {
            log.warn("{} {} failed", request.getMethod(), raw, e);
            return new ApiException(500, "InternalError", "Internal error occurred: " + e).response();
        }
    }

    private static MockResponse finish(MockResponse response) {
        if (response.getWebSocketListener() != null) {
            return response;
        }
        boolean hasBody = response.getBody() != null && response.getBody().size() > 0;
        if (!hasBody && response.code() >= 400) {
            int code = response.code();
            String reason = ApiException.reasonFor(code);
            response.setBody(
                    ApiException.body(code, reason, reason, null, null, null).toString());
            hasBody = true;
        }
        if (hasBody && response.header("Content-Type") == null) {
            response.setHeader("Content-Type", "application/json");
        }
        return response;
    }

    private MockResponse route(RecordedRequest request, String raw) {
        String path = ResourcePath.pathOnly(raw);
        HttpMethod method = request.method();
        if (method == HttpMethod.GET) {
            MockResponse d = nonResource(path);
            if (d != null) {
                return d;
            }
        }
        Optional<ResourcePath> parsed = ResourcePath.parse(raw);
        if (parsed.isEmpty()) {
            throw new ApiException(404, "NotFound", "the server could not find the requested resource");
        }
        ResourcePath rp = parsed.get();
        if (method != HttpMethod.GET && refused(rp.plural())) {
            throw new ApiException(503, "ServiceUnavailable", "the server is currently unable to handle the request");
        }
        if (!rp.group().isEmpty()
                && Discovery.builtInKind(rp.group(), rp.plural()).isEmpty()
                && handleGet(CRD_LIST_PATH + "/" + rp.plural() + "." + rp.group())
                                .code()
                        != 200) {
            // kube-apiserver serves a custom resource only while its CRD exists
            throw new ApiException(404, "NotFound", "the server could not find the requested resource");
        }
        if ((method == HttpMethod.POST || method == HttpMethod.PUT || method == HttpMethod.PATCH)
                && contentType(request).contains("protobuf")) {
            request = fromProtobuf(request, rp);
        }
        return switch (method) {
            case GET -> Tables.wanted(header(request, "Accept")) && !rp.isWatch() ? table(rp) : get(rp, raw);
            case POST -> create(request, rp);
            case PUT -> update(request, rp);
            case PATCH -> patch(request, rp);
            case DELETE -> rp.isList() ? deleteCollection(rp) : delete(request, rp);
            default -> null;
        };
    }

    /**
     * Typed client-go clients (e.g. {@code kubectl create namespace}) send protobuf and do not fall back to JSON; the
     * creates of the kinds {@link ProtobufBodies} reads are turned into JSON, others get 415.
     */
    private static RecordedRequest fromProtobuf(RecordedRequest request, ResourcePath rp) {
        Buffer body = request.getBody();
        Optional<ObjectNode> json = request.method() == HttpMethod.POST && rp.isList() && body != null
                ? ProtobufBodies.toJson(
                        body.getBytes(),
                        Discovery.builtInKind(rp.group(), rp.plural()).orElse(""))
                : Optional.empty();
        if (json.isEmpty()) {
            throw new ApiException(
                    415,
                    "UnsupportedMediaType",
                    "the body of the request was in an unknown format - "
                            + "accepted media types include: application/json, application/yaml");
        }
        return new RecordedRequest(
                request.getHttpVersion(),
                request.method(),
                request.getPath(),
                request.getHeaders(),
                new Buffer(json.get().toString().getBytes(StandardCharsets.UTF_8)));
    }

    // ---------------------------------------------------------------- discovery and non-resource paths

    private MockResponse nonResource(String path) {
        String p = path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        String[] s = p.replaceAll("^/", "").split("/");
        switch (p) {
            case "/version":
                return json(200, Discovery.version());
            case "/api":
                return json(200, Discovery.apiVersions(serverAddress));
            case "/apis":
                return json(200, discovery().apiGroupList());
            case "/healthz", "/livez", "/readyz":
                return new MockResponse()
                        .setResponseCode(200)
                        .setHeader("Content-Type", "text/plain")
                        .setBody("ok");
            case "/": {
                ObjectNode root = JsonNodeFactory.instance.objectNode();
                ArrayNode paths = root.putArray("paths");
                List.of("/api", "/api/v1", "/apis", "/healthz", "/livez", "/readyz", "/version")
                        .forEach(paths::add);
                return json(200, root);
            }
            default:
                break;
        }
        if (s.length == 2 && s[0].equals("api")) {
            return json(discovery()
                    .apiResourceList("", s[1])
                    .orElseThrow(() ->
                            new ApiException(404, "NotFound", "the server could not find the requested resource")));
        }
        if (s.length == 2 && s[0].equals("apis")) {
            return json(discovery()
                    .apiGroup(s[1])
                    .orElseThrow(() ->
                            new ApiException(404, "NotFound", "the server could not find the requested resource")));
        }
        if (s.length == 3 && s[0].equals("apis")) {
            return json(discovery()
                    .apiResourceList(s[1], s[2])
                    .orElseThrow(() ->
                            new ApiException(404, "NotFound", "the server could not find the requested resource")));
        }
        if (p.equals("/openapi/v3")) {
            return json(discovery().openApiV3Root());
        }
        if (s.length == 4 && s[0].equals("openapi") && s[1].equals("v3") && s[2].equals("api")) {
            return json(openApiV3("", s[3]));
        }
        if (s.length == 5 && s[0].equals("openapi") && s[1].equals("v3") && s[2].equals("apis")) {
            return json(openApiV3(s[3], s[4]));
        }
        if (s[0].equals("openapi") || s[0].equals("swagger.json") || s[0].equals("metrics")) {
            throw new ApiException(404, "NotFound", "the server could not find the requested resource");
        }
        return null;
    }

    /** A group version's OpenAPI v3 document: its operations (from discovery) and its kinds' schemas. */
    private ObjectNode openApiV3(String group, String version) {
        Discovery d = discovery();
        ObjectNode doc = d.openApiV3(group, version)
                .orElseThrow(
                        () -> new ApiException(404, "NotFound", "the server could not find the requested resource"));
        Map<String, Optional<JsonNode>> kinds = new java.util.LinkedHashMap<>();
        for (Discovery.Resource r : d.resources()) {
            if (r.group().equals(group) && r.version().equals(version) && !r.isSubresource()) {
                kinds.put(
                        r.kind(),
                        Discovery.builtInKind(group, r.name()).isPresent()
                                ? Optional.empty()
                                : admissionTarget(
                                                new ResourcePath(group, version, null, r.name(), null, null, Map.of()))
                                        .schema());
            }
        }
        doc.set("components", OpenApiSchemas.components(group, version, kinds));
        return doc;
    }

    /** The discovery view of the built-in resources and of the CRDs stored right now. */
    public Discovery discovery() {
        long changes = crdChanges.get();
        CachedDiscovery cached = discoveryCache;
        if (cached != null && cached.crdChanges() == changes) {
            return cached.discovery();
        }
        MockResponse r = super.handleGet(CRD_LIST_PATH);
        List<JsonNode> crds = new ArrayList<>();
        if (r.code() == 200 && r.getBody() != null) {
            JsonNode list = JSON.readTree(bodyString(r));
            list.path("items").values().forEach(crds::add);
        }
        Discovery fresh = Discovery.of(crds);
        discoveryCache = new CachedDiscovery(changes, fresh);
        return fresh;
    }

    private static MockResponse json(int code, JsonNode body) {
        return new MockResponse()
                .setResponseCode(code)
                .setHeader("Content-Type", "application/json")
                .setBody(body.toString());
    }

    private static MockResponse json(JsonNode body) {
        return json(200, body);
    }

    private static JsonNode tree(String json) {
        return json == null ? null : JSON.readTree(json);
    }

    private static long parseResourceVersion(String version) {
        try {
            return Long.parseLong(version);
        } catch (NumberFormatException e) {
            throw ApiException.badRequest("invalid resourceVersion " + version);
        }
    }

    private static String bodyString(MockResponse r) {
        return new String(r.getBody().getBytes(), StandardCharsets.UTF_8);
    }

    // ---------------------------------------------------------------- reads

    private MockResponse get(ResourcePath rp, String raw) {
        if (rp.isWatch()) {
            return watch(rp);
        }
        if (rp.isList() && brokenLists.contains(rp.group() + "/" + rp.plural())) {
            throw new ApiException(
                    500, "InternalError", "Internal error occurred: list of " + rp.plural() + " is broken by the test");
        }
        if (!rp.isList()) {
            MockResponse r = handleGet(rp.objectPath());
            if (r.code() == 404) {
                throw ApiException.notFound(rp);
            }
            return r;
        }
        List<Selectors.Requirement> labels;
        List<Selectors.Requirement> fields;
        try {
            labels = Selectors.parseLabelSelector(rp.query().get("labelSelector"));
            fields = Selectors.parseFieldSelector(rp.query().get("fieldSelector"));
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest(e.getMessage());
        }
        // The list and the version it is at, from one moment: a watch resumes from that version.
        long[] version = new long[1];
        MockResponse r = exclusive(() -> {
            version[0] = history.current();
            return super.handleGet(rp.objectPath());
        });
        if (r.code() != 200 || r.getBody() == null || r.getBody().size() == 0) {
            return r;
        }
        JsonNode body = JSON.readTree(bodyString(r));
        if (!(body instanceof ObjectNode list) || !list.has("items")) {
            return r;
        }
        (list.get("metadata") instanceof ObjectNode m ? m : list.putObject("metadata"))
                .put("resourceVersion", String.valueOf(version[0]));
        ArrayNode kept = JsonNodeFactory.instance.arrayNode();
        for (JsonNode item : list.path("items").values()) {
            if (Selectors.matchesLabels(labels, item) && Selectors.matchesFields(fields, item)) {
                kept.add(item);
            }
        }
        list.set("items", kept);
        pages.page(rp.objectPath(), rp.query(), list, version[0]);
        Optional<String> kind = Discovery.builtInKind(rp.group(), rp.plural())
                .or(() -> discovery().kind(rp.group(), rp.plural()));
        kind.ifPresent(k -> {
            list.put("kind", k + "List");
            list.put("apiVersion", rp.group().isEmpty() ? rp.version() : rp.group() + "/" + rp.version());
        });
        return json(list);
    }

    /**
     * Every watch is a {@link SelectorWatch}. fabric8's own watch cannot evaluate set-based or arbitrary field
     * selectors, and when a client closes it, its listener waits for its sender thread on the vert.x event loop,
     * which that thread needs: the whole server then stalls for up to a minute (seen when a controller restarts).
     */
    private MockResponse watch(ResourcePath rp) {
        if (brokenWatches.contains(rp.group() + "/" + rp.plural())) {
            throw new ApiException(
                    500,
                    "InternalError",
                    "Internal error occurred: watch of " + rp.plural() + " is broken by the test");
        }
        String labelSelector = rp.query().getOrDefault("labelSelector", "");
        String fieldSelector = rp.query().getOrDefault("fieldSelector", "");
        List<Selectors.Requirement> labels;
        List<Selectors.Requirement> fields;
        try {
            labels = Selectors.parseLabelSelector(labelSelector);
            fields = new ArrayList<>(Selectors.parseFieldSelector(fieldSelector));
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest(e.getMessage());
        }
        if (rp.name() != null) {
            fields.add(new Selectors.Equals("metadata.name", rp.name()));
        }
        ResourcePath collection =
                new ResourcePath(rp.group(), rp.version(), rp.namespace(), rp.plural(), null, null, Map.of());
        String since = rp.query().getOrDefault("resourceVersion", "");
        Consumer<SelectorWatch> start = since.isEmpty() || since.equals("0")
                ? w -> exclusive(() -> {
                    MockResponse r = super.handleGet(collection.objectPath());
                    JsonNode list = JSON.readTree(bodyString(r));
                    for (JsonNode item : list.path("items").values()) {
                        if (w.matches(
                                collection.group(),
                                collection.plural(),
                                item.path("metadata").path("namespace").asString(null),
                                item)) {
                            w.event("ADDED", item);
                        }
                    }
                    return null;
                })
                : w -> exclusive(() -> {
                    long version = parseResourceVersion(since);
                    history.since(version)
                            .ifPresentOrElse(
                                    changes -> changes.forEach(c -> w.change(
                                            c.group(), c.plural(), c.namespace(), tree(c.before()), tree(c.after()))),
                                    () -> w.expire(
                                            "too old resource version: " + version + " (" + history.current() + ")"));
                    return null;
                });
        SelectorWatch watch = new SelectorWatch(collection, labels, fields, selectorWatches, start);
        selectorWatches.add(watch);
        return new MockResponse().withWebSocketUpgrade(watch);
    }

    /**
     * Breaks every open watch of {@code group}/{@code plural} in the middle of an event (see
     * {@link SelectorWatch#cutMidEvent}), and refuses new ones with a 500 until {@link #mendWatches}, as an API server
     * behind a failing proxy would; lists still work.
     */
    public void breakWatches(String group, String plural) {
        brokenWatches.add(group + "/" + plural);
        exclusive(() -> {
            for (SelectorWatch w : selectorWatches) {
                if (w.watches(group, plural)) {
                    w.cutMidEvent();
                }
            }
            return null;
        });
    }

    /**
     * As {@link #breakWatches}, and lists of {@code group}/{@code plural} are refused too until {@link #mendWatches}:
     * a client's cache of them can neither resume nor list again, so it is behind whatever happens meanwhile.
     */
    public void breakReads(String group, String plural) {
        brokenLists.add(group + "/" + plural);
        breakWatches(group, plural);
    }

    /**
     * The next {@code count} writes (create, update, patch, delete) of {@code plural} are refused with a 503, as an API
     * server that is restarting or overloaded answers; reads still work.
     */
    public void refuseWrites(String plural, int count) {
        refusedWrites.put(plural, new AtomicInteger(count));
    }

    private boolean refused(String plural) {
        var left = refusedWrites.get(plural);
        return left != null && left.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
    }

    /** Whether some client holds a watch of {@code group}/{@code plural} open, so a test can break it knowingly. */
    public boolean isWatched(String group, String plural) {
        return selectorWatches.stream().anyMatch(w -> w.watches(group, plural));
    }

    /** Watches (and lists) of {@code group}/{@code plural} are served again. */
    public void mendWatches(String group, String plural) {
        brokenLists.remove(group + "/" + plural);
        brokenWatches.remove(group + "/" + plural);
    }

    /** Finds one object by its key in the {@link StoreIndex}, where the parent scans the whole store. */
    @Override
    public Map.Entry<AttributeSet, String> findResource(AttributeSet key) {
        return switch (index.find(key)) {
            case StoreIndex.Lookup.Found(AttributeSet stored) -> {
                String value = map.get(stored);
                yield value == null ? super.findResource(key) : Map.entry(stored, value);
            }
            case StoreIndex.Lookup.Absent() -> null;
            case StoreIndex.Lookup.Unknown() -> super.findResource(key);
        };
    }

    /** A GET of one object is a lookup by key; the parent lists the whole store to answer it. */
    @Override
    public MockResponse handleGet(String path) {
        AttributeSet key = getKey(path);
        if (!key.containsKey("name") || readLock == null) {
            return super.handleGet(path);
        }
        readLock.lock();
        try {
            Map.Entry<AttributeSet, String> entry = findResource(key);
            return entry == null
                    ? new MockResponse().setResponseCode(404)
                    : new MockResponse().setResponseCode(200).setBody(entry.getValue());
        } finally {
            readLock.unlock();
        }
    }

    /** Also keeps the {@link StoreIndex} and feeds {@link SelectorWatch}es; always called under the write lock. */
    @Override
    public void processEvent(
            String path,
            AttributeSet pathAttributes,
            AttributeSet oldAttributes,
            io.fabric8.kubernetes.api.model.GenericKubernetesResource resource,
            String newState) {
        String existing = oldAttributes == null ? null : map.get(oldAttributes);
        super.processEvent(path, pathAttributes, oldAttributes, resource, newState);
        if (oldAttributes != null && existing != null) {
            index.removed(oldAttributes);
        }
        if (newState != null) {
            index.stored(storedKey(pathAttributes, resource, newState));
        }
        if (path.startsWith(CRD_LIST_PATH)) {
            crdChanges.incrementAndGet();
        }
        if (java.util.Objects.equals(existing, newState)) {
            return;
        }
        Optional<ResourcePath> rp = ResourcePath.parse(path);
        if (rp.isEmpty()) {
            return;
        }
        JsonNode before = existing == null ? null : JSON.readTree(existing);
        JsonNode after = newState == null ? null : JSON.readTree(newState);
        long version;
        if (after == null) {
            // as kube-apiserver does, a deletion has a resourceVersion of its own, which its DELETED event carries
            version = requestResourceVersion();
            ((ObjectNode) before.path("metadata")).put("resourceVersion", String.valueOf(version));
        } else {
            version = Long.parseLong(
                    after.path("metadata").path("resourceVersion").asString("0"));
        }
        String ns = after != null
                ? after.path("metadata").path("namespace").asString(rp.get().namespace())
                : before.path("metadata").path("namespace").asString(rp.get().namespace());
        history.record(new WatchHistory.Change(
                version,
                rp.get().group(),
                rp.get().plural(),
                ns,
                after == null ? before.toString() : existing,
                newState));
        for (SelectorWatch w : selectorWatches) {
            w.change(rp.get().group(), rp.get().plural(), ns, before, after);
        }
    }

    /** The key the parent stored {@code newState} under, computed as it does. */
    private AttributeSet storedKey(
            AttributeSet pathAttributes,
            io.fabric8.kubernetes.api.model.GenericKubernetesResource resource,
            String newState) {
        KubernetesAttributesExtractor extractor = (KubernetesAttributesExtractor) attributeExtractor;
        AttributeSet key = resource != null ? extractor.extract(resource) : extractor.fromResource(newState);
        return key.containsKey("plural") ? key : AttributeSet.merge(pathAttributes, key);
    }

    @Override
    public void reset() {
        exclusive(() -> {
            super.reset();
            index.clear();
            crdChanges.incrementAndGet();
            history.forgetAll(requestResourceVersion());
            return null;
        });
    }

    /**
     * DELETE, honouring DeleteOptions' preconditions as kube-apiserver does: a uid or resourceVersion that is not the
     * stored one gets 409 Conflict and deletes nothing (a controller deletes only the version it judged).
     */
    private MockResponse delete(RecordedRequest request, ResourcePath rp) {
        return exclusive(() -> {
            String body = readBody(request);
            JsonNode preconditions =
                    body == null || body.isBlank() ? null : JSON.readTree(body).path("preconditions");
            if (preconditions != null && preconditions.isObject()) {
                Map.Entry<AttributeSet, String> entry = findResource(getKey(rp.objectPath()));
                if (entry == null) {
                    throw ApiException.notFound(rp);
                }
                JsonNode stored = JSON.readTree(entry.getValue()).path("metadata");
                for (String field : List.of("uid", "resourceVersion")) {
                    String wanted = preconditions.path(field).asString("");
                    if (!wanted.isEmpty() && !wanted.equals(stored.path(field).asString(""))) {
                        throw new ApiException(
                                409,
                                "Conflict",
                                "Operation cannot be fulfilled on " + ApiException.qualified(rp)
                                        + " \"" + rp.name() + "\": the precondition " + field + " " + wanted
                                        + " does not match the stored "
                                        + stored.path(field).asString(""),
                                rp.name(),
                                rp.group(),
                                rp.plural());
                    }
                }
            }
            MockResponse r = super.handleDelete(rp.objectPath());
            if (r.code() == 404) {
                throw ApiException.notFound(rp);
            }
            return r;
        });
    }

    /** deletecollection, honouring the same selectors as list (the parent would ignore set-based ones). */
    private MockResponse deleteCollection(ResourcePath rp) {
        return exclusive(() -> {
            MockResponse listed = get(
                    new ResourcePath(rp.group(), rp.version(), rp.namespace(), rp.plural(), null, null, rp.query()),
                    rp.objectPath());
            JsonNode list = JSON.readTree(bodyString(listed));
            ArrayNode deleted = JsonNodeFactory.instance.arrayNode();
            for (JsonNode item : list.path("items").values()) {
                JsonNode meta = item.path("metadata");
                ResourcePath one = new ResourcePath(
                        rp.group(),
                        rp.version(),
                        meta.path("namespace").asString(null),
                        rp.plural(),
                        meta.path("name").asString(),
                        null,
                        Map.of());
                MockResponse r = super.handleDelete(one.objectPath());
                if (r.code() == 200) {
                    deleted.add(item);
                }
            }
            ObjectNode result = (ObjectNode) list;
            result.set("items", deleted);
            return json(result);
        });
    }

    /** kubectl get's server-side printing. */
    private MockResponse table(ResourcePath rp) {
        MockResponse r = get(rp, rp.objectPath() + query(rp));
        if (r.code() != 200) {
            return r;
        }
        JsonNode body = JSON.readTree(bodyString(r));
        List<JsonNode> objects = new ArrayList<>();
        if (rp.isList()) {
            body.path("items").values().forEach(objects::add);
        } else {
            objects.add(body);
        }
        JsonNode crd = null;
        if (!rp.group().isEmpty()
                && Discovery.builtInKind(rp.group(), rp.plural()).isEmpty()) {
            MockResponse c = handleGet(CRD_LIST_PATH + "/" + rp.plural() + "." + rp.group());
            if (c.code() == 200) {
                crd = JSON.readTree(bodyString(c));
            }
        }
        String rv = body.path("metadata").path("resourceVersion").asString("");
        return json(Tables.table(Tables.columns(rp.group(), rp.plural(), crd, rp.version()), objects, rv));
    }

    private static String query(ResourcePath rp) {
        StringBuilder b = new StringBuilder();
        rp.query()
                .forEach((k, v) -> b.append(b.isEmpty() ? '?' : '&')
                        .append(java.net.URLEncoder.encode(k, StandardCharsets.UTF_8))
                        .append('=')
                        .append(java.net.URLEncoder.encode(v, StandardCharsets.UTF_8)));
        return b.toString();
    }

    // ---------------------------------------------------------------- create

    private MockResponse create(RecordedRequest request, ResourcePath rp) {
        return exclusive(() -> {
            if (!rp.isList()) {
                // e.g. pods/binding, pods/eviction: not emulated beyond what the parent does
                return super.handleCreate(request);
            }
            ObjectNode body = objectBody(readBody(request));
            ObjectNode meta = metadata(body);
            if (rp.namespace() == null) {
                meta.remove("namespace"); // the API server clears it for cluster-scoped objects
            }
            if (!meta.path("resourceVersion").asString("").isEmpty()) {
                throw ApiException.badRequest("resourceVersion should not be set on objects to be created");
            }
            for (String serverSet : SERVER_SET_ON_CREATE) {
                meta.remove(serverSet);
            }
            Admission.Target target = admissionTarget(rp);
            if (body.path("kind").asString("").isEmpty() && !target.kind().isEmpty()) {
                // the API server decodes a body without kind/apiVersion as the kind of the URL
                body.put("kind", target.kind());
                body.put("apiVersion", rp.group().isEmpty() ? rp.version() : rp.group() + "/" + rp.version());
            }
            List<String> warnings = Admission.decode(target, body);
            clearStatusOnCreate(rp, body);
            if (rp.group().isEmpty() && rp.plural().equals("services")) {
                serviceDefaults.applyOnCreate(body);
            } else if (rp.group().isEmpty() && rp.plural().equals("namespaces")) {
                Admission.namespaceOnCreate(body);
            } else if (rp.group().equals("apiextensions.k8s.io") && rp.plural().equals("customresourcedefinitions")) {
                establish(body);
            }
            Admission.validate(target, body, Optional.empty());
            byte[] bytes = body.toString().getBytes(StandardCharsets.UTF_8);
            RecordedRequest rewritten = new RecordedRequest(
                    request.getHttpVersion(),
                    request.method(),
                    request.getPath(),
                    request.getHeaders(),
                    new Buffer(bytes));
            MockResponse r = super.handleCreate(rewritten);
            if (r.code() == 409) {
                throw new ApiException(
                        409,
                        "AlreadyExists",
                        ApiException.qualified(rp) + " \"" + meta.path("name").asString("") + "\" already exists",
                        meta.path("name").asString(null),
                        rp.group(),
                        rp.plural());
            }
            return withWarnings(r, warnings);
        });
    }

    /** Fields of metadata the API server sets itself on create, whatever the client sent. */
    private static final List<String> SERVER_SET_ON_CREATE = List.of(
            "uid",
            "creationTimestamp",
            "deletionTimestamp",
            "deletionGracePeriodSeconds",
            "generation",
            "selfLink",
            "managedFields");

    /**
     * Kinds with a status subresource ignore the status sent on create (their strategies reset it), except Nodes,
     * whose status the kubelet creates them with; Services and Namespaces get theirs from their defaults.
     */
    private void clearStatusOnCreate(ResourcePath rp, ObjectNode body) {
        if (rp.group().isEmpty() && rp.plural().equals("nodes") || !hasStatusSubresource(rp)) {
            return;
        }
        body.remove("status");
        if (rp.group().isEmpty() && rp.plural().equals("pods")) {
            body.putObject("status").put("phase", "Pending");
        }
    }

    /** The kind written at {@code rp}, with its CRD version's schema for a custom resource. */
    private Admission.Target admissionTarget(ResourcePath rp) {
        Optional<String> builtIn = Discovery.builtInKind(rp.group(), rp.plural());
        if (builtIn.isPresent() || rp.group().isEmpty()) {
            return new Admission.Target(rp, builtIn.orElse(""), Optional.empty());
        }
        MockResponse c = handleGet(CRD_LIST_PATH + "/" + rp.plural() + "." + rp.group());
        if (c.code() != 200) {
            return new Admission.Target(rp, "", Optional.empty());
        }
        JsonNode crd = JSON.readTree(bodyString(c));
        return new Admission.Target(
                rp, crd.path("spec").path("names").path("kind").asString(""), Admission.schemaOf(crd, rp.version()));
    }

    private static MockResponse withWarnings(MockResponse response, List<String> warnings) {
        warnings.forEach(w -> response.addHeader("Warning", Admission.warningHeader(w)));
        return response;
    }

    /** The API server's CRD controller marks accepted CRDs NamesAccepted and Established. */
    private static void establish(ObjectNode crd) {
        JsonNode spec = crd.path("spec");
        ObjectNode status = crd.putObject("status");
        status.set(
                "acceptedNames",
                spec.path("names").isObject() ? spec.get("names").deepCopy() : JsonNodeFactory.instance.objectNode());
        String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        ArrayNode conditions = status.putArray("conditions");
        ObjectNode names = conditions.addObject();
        names.put("type", "NamesAccepted");
        names.put("status", "True");
        names.put("reason", "NoConflicts");
        names.put("message", "no conflicts found");
        names.put("lastTransitionTime", now);
        ObjectNode established = conditions.addObject();
        established.put("type", "Established");
        established.put("status", "True");
        established.put("reason", "InitialNamesAccepted");
        established.put("message", "the initial names have been accepted");
        established.put("lastTransitionTime", now);
        ArrayNode stored = status.putArray("storedVersions");
        for (JsonNode v : spec.path("versions").values()) {
            if (v.path("storage").asBoolean(false)) {
                stored.add(v.path("name").asString(""));
            }
        }
    }

    // ---------------------------------------------------------------- update and patch

    private MockResponse update(RecordedRequest request, ResourcePath rp) {
        if (rp.isList()) {
            return null;
        }
        return exclusive(() -> {
            ObjectNode body = objectBody(readBody(request));
            AttributeSet key = getKey(rp.objectPath());
            Map.Entry<AttributeSet, String> entry = findResource(key);
            if (entry == null) {
                throw ApiException.notFound(rp);
            }
            return commit(rp, key, entry, JSON.readTree(entry.getValue()), body);
        });
    }

    private MockResponse patch(RecordedRequest request, ResourcePath rp) {
        if (rp.isList()) {
            return null;
        }
        return exclusive(() -> {
            String contentType = contentType(request);
            String body = readBody(request);
            AttributeSet key = getKey(rp.objectPath());
            Map.Entry<AttributeSet, String> entry = findResource(key);
            if (entry == null) {
                if (contentType.equals("application/apply-patch+yaml") && rp.subresource() == null) {
                    return applyCreate(request, rp, body);
                }
                throw ApiException.notFound(rp);
            }
            JsonNode current = JSON.readTree(entry.getValue());
            JsonNode patched = switch (contentType) {
                case "application/json-patch+json" -> jsonPatch(rp, current, body);
                case "application/merge-patch+json", "application/json" ->
                    JsonMergePatch.apply(current, JSON.readTree(body));
                case "application/strategic-merge-patch+json" ->
                    JsonMergePatch.applyStrategic(current, JSON.readTree(body));
                case "application/apply-patch+yaml", "application/apply-patch+json" ->
                    JsonMergePatch.apply(current, readYaml(body));
                default ->
                    throw new ApiException(
                            415,
                            "UnsupportedMediaType",
                            "the body of the request was in an unknown format - accepted media types include: "
                                    + "application/json-patch+json, application/merge-patch+json, "
                                    + "application/apply-patch+yaml, application/strategic-merge-patch+json");
            };
            if (!(patched instanceof ObjectNode)) {
                throw ApiException.badRequest("the patch did not produce an object");
            }
            return commit(rp, key, entry, current, patched);
        });
    }

    private static JsonNode jsonPatch(ResourcePath rp, JsonNode current, String body) {
        JsonNode ops = JSON.readTree(body);
        if (!ops.isArray()) {
            throw ApiException.badRequest("json: cannot unmarshal object into Go value of type jsonpatch.Patch");
        }
        try {
            return JsonPatch.apply(ops, current.deepCopy());
        } catch (RuntimeException e) {
            throw ApiException.invalid(
                    rp, "the server rejected our request due to an error in our request: " + e.getMessage());
        }
    }

    private MockResponse applyCreate(RecordedRequest request, ResourcePath rp, String body) {
        JsonNode object = readYaml(body);
        ResourcePath collection =
                new ResourcePath(rp.group(), rp.version(), rp.namespace(), rp.plural(), null, null, Map.of());
        ObjectNode obj = objectBody(object.toString());
        metadata(obj).put("name", rp.name());
        RecordedRequest post = new RecordedRequest(
                request.getHttpVersion(),
                HttpMethod.POST,
                collection.objectPath(),
                request.getHeaders(),
                new Buffer(obj.toString().getBytes(StandardCharsets.UTF_8)));
        return create(post, collection);
    }

    /**
     * Stores {@code candidate} as the new state of the object, with the API server's rules: resourceVersion
     * precondition, status subresource split, immutable metadata, generation and resourceVersion bumps, finalizers.
     */
    private MockResponse commit(
            ResourcePath rp,
            AttributeSet key,
            Map.Entry<AttributeSet, String> entry,
            JsonNode current,
            JsonNode candidate) {
        Admission.Target target = admissionTarget(rp);
        List<String> warnings = Admission.decode(target, (ObjectNode) candidate);
        JsonNode currentMeta = current.path("metadata");
        String currentVersion = currentMeta.path("resourceVersion").asString("");
        String name = candidate.path("metadata").path("name").asString("");
        if (!name.isEmpty() && !name.equals(rp.name())) {
            throw ApiException.badRequest(
                    "the name of the object (" + name + ") does not match the name on the URL (" + rp.name() + ")");
        }
        String namespace = candidate.path("metadata").path("namespace").asString("");
        if (rp.namespace() != null && !namespace.isEmpty() && !namespace.equals(rp.namespace())) {
            throw ApiException.badRequest("the namespace of the object (" + namespace
                    + ") does not match the namespace on the URL (" + rp.namespace() + ")");
        }
        String requestedVersion =
                candidate.path("metadata").path("resourceVersion").asString("");
        if (!requestedVersion.isEmpty() && !requestedVersion.equals(currentVersion)) {
            throw ApiException.conflict(rp);
        }
        if (rp.subresource() != null && !rp.isStatus()) {
            throw new ApiException(404, "NotFound", "the server could not find the requested resource");
        }
        boolean statusSubresource = hasStatusSubresource(rp);
        if (rp.isStatus() && !statusSubresource) {
            throw new ApiException(404, "NotFound", "the server could not find the requested resource");
        }

        ObjectNode updated;
        if (rp.isStatus()) {
            updated = (ObjectNode) current.deepCopy();
            setOrRemove(updated, "status", candidate.get("status"));
        } else {
            updated = (ObjectNode) candidate.deepCopy();
            if (statusSubresource) {
                setOrRemove(updated, "status", current.get("status"));
            }
            for (String field : new String[] {"apiVersion", "kind"}) {
                if (updated.path(field).asString("").isEmpty() && current.has(field)) {
                    updated.set(field, current.get(field).deepCopy());
                }
            }
            if (rp.group().isEmpty() && rp.plural().equals("services")) {
                serviceDefaults.applyOnUpdate(current, updated);
            }
        }
        ObjectNode meta = metadata(updated);
        for (String field : new String[] {
            "name",
            "namespace",
            "uid",
            "creationTimestamp",
            "deletionTimestamp",
            "deletionGracePeriodSeconds",
            "generation"
        }) {
            setOrRemove(meta, field, currentMeta.get(field));
        }
        meta.put("resourceVersion", currentVersion);
        if (!rp.isStatus() && !withoutMetadataAndStatus(current).equals(withoutMetadataAndStatus(updated))) {
            meta.put("generation", currentMeta.path("generation").asLong(0) + 1);
        }
        Admission.validate(target, updated, Optional.of(current));
        boolean changed = !updated.equals(current);
        if (changed) {
            meta.put("resourceVersion", String.valueOf(requestResourceVersion()));
        }
        String json = updated.toString();
        if (meta.has("deletionTimestamp") && meta.path("finalizers").isEmpty()) {
            processEvent(rp.objectPath(), key, entry.getKey(), null, null);
            return withWarnings(new MockResponse().setResponseCode(200).setBody(json), warnings);
        }
        if (changed) {
            processEvent(rp.objectPath(), key, entry.getKey(), null, json);
        }
        return withWarnings(new MockResponse().setResponseCode(200).setBody(json), warnings);
    }

    private boolean hasStatusSubresource(ResourcePath rp) {
        if (Discovery.builtInHasStatus(rp.group(), rp.plural())) {
            return true;
        }
        return isStatusSubresourceEnabledForResource(rp.objectPath())
                || discovery().hasStatusSubresource(rp.group(), rp.plural());
    }

    private static JsonNode withoutMetadataAndStatus(JsonNode object) {
        ObjectNode copy = (ObjectNode) object.deepCopy();
        copy.remove("metadata");
        copy.remove("status");
        return copy;
    }

    private static void setOrRemove(ObjectNode target, String field, JsonNode value) {
        if (value == null || value.isMissingNode() || value.isNull()) {
            target.remove(field);
        } else {
            target.set(field, value.deepCopy());
        }
    }

    private static ObjectNode metadata(ObjectNode object) {
        if (object.get("metadata") instanceof ObjectNode meta) {
            return meta;
        }
        return object.putObject("metadata");
    }

    private static ObjectNode objectBody(String body) {
        if (body == null || body.isBlank()) {
            throw ApiException.badRequest("the request body is empty");
        }
        JsonNode node = JSON.readTree(body);
        if (!(node instanceof ObjectNode object)) {
            throw ApiException.badRequest("the request body is not a JSON object");
        }
        return object;
    }

    private static JsonNode readYaml(String body) {
        try {
            return YAML.readTree(body);
        } catch (JacksonException e) {
            throw ApiException.badRequest("invalid YAML in request body: " + e.getOriginalMessage());
        }
    }

    private static String readBody(RecordedRequest request) {
        Buffer b = request.getBody();
        return b == null || b.getBytes() == null ? "" : new String(b.getBytes(), StandardCharsets.UTF_8);
    }

    private static String header(RecordedRequest request, String name) {
        String value = request.getHeader(name);
        return value != null ? value : request.getHeader(name.toLowerCase(Locale.ROOT));
    }

    private static String contentType(RecordedRequest request) {
        String ct = header(request, "Content-Type");
        if (ct == null) {
            return "application/json-patch+json"; // what the parent assumed; real servers answer 415
        }
        int semi = ct.indexOf(';');
        return (semi < 0 ? ct : ct.substring(0, semi)).trim().toLowerCase(Locale.ROOT);
    }
}
