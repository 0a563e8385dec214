package io.lbk8s.install;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.LoadBalancerIngressBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.lbk8s.cli.CliRun;
import io.lbk8s.kube.BgpSessionStates;
import io.lbk8s.kube.ClusterNames;
import io.lbk8s.kube.ConfigResources;
import io.lbk8s.kube.IpAddressClaims;
import io.lbk8s.kube.ServiceBgpStatuses;
import io.lbk8s.kube.ServiceL2Statuses;
import io.lbk8s.service.Annotations;
import io.lbk8s.testkit.cluster.FreshApiServer;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * {@code lbk8s status} through the CLI against the real kube-apiserver, with the objects the controller and speakers
 * leave behind written by hand: pools, Services with their status and pool annotation, ServiceL2Statuses, and the
 * Warning events that explain a Service that is not fully served. Asserts what a user reads.
 */
class StatusApiTest {
    static final String NS = InstallValues.DEFAULT_NAMESPACE;

    FreshApiServer server;
    KubernetesClient client;
    Path kubeconfig;

    @BeforeEach
    void start(@TempDir Path dir) throws Exception {
        server = FreshApiServer.startWithCrds(Path.of("..", "deploy", "crds"));
        client = server.client();
        kubeconfig = server.writeKubeconfig(dir.resolve("kubeconfig"));
        for (String namespace : List.of(NS, "shop")) {
            server.ensureNamespace(namespace);
        }

        // "lan": 3 + 8 addresses, of which the first range is nearly full (2 of 3); "reserved": not auto-assigned,
        // unused
        pool("lan", true, "10.5.0.200-10.5.0.202", "10.5.0.240/29");
        pool("reserved", false, "10.5.1.0/28");
        client.genericKubernetesResources(ConfigResources.L2_ADVERTISEMENTS)
                .inNamespace(NS)
                .resource(new GenericKubernetesResourceBuilder()
                        .withApiVersion("metallb.io/v1beta1")
                        .withKind("L2Advertisement")
                        .withNewMetadata()
                        .withName("all")
                        .withNamespace(NS)
                        .endMetadata()
                        .addToAdditionalProperties("spec", Map.of())
                        .build())
                .create();

        // web: assigned and announced by node 3
        Service web = service("default", "web", null, "10.5.0.200", "lan");
        l2Status(web, "lb-k8s-node-3", "eth0");
        // api: assigned, but no node announces it
        Service api = service("default", "api", null, "10.5.0.201", "lan");
        event(
                api,
                "NotAnnounced",
                "no speaker may announce 10.5.0.201: every node with a ready endpoint is excluded",
                "lbk8s-speaker",
                "2026-01-01T10:00:00Z");
        // shop/db: assigned from the second range, no annotation (pool found by address), announced by node 4
        Service db = service("shop", "db", null, "10.5.0.241", null);
        l2Status(db, "lb-k8s-node-4", "eth0");
        // queue: pending. Its NotAnnounced is from when it still had an address, but the speaker's clock is ahead of
        // the controller's, so it sorts after the AllocationFailed that explains the Service now
        Service queue = service("default", "queue", null, null, null);
        event(
                queue,
                "AllocationFailed",
                "requested IP 10.5.2.1 is not in the requested pool \"reserved\"",
                "lbk8s-controller",
                "2026-01-01T09:00:00Z");
        event(
                queue,
                "NotAnnounced",
                "no speaker may announce 10.5.0.202: no ready endpoint",
                "lbk8s-speaker",
                "2026-01-01T09:00:30Z");
        // other: of a class lbk8s does not serve
        service("default", "other", "example.com/other", null, null);
        // a ClusterIP Service is none of status's business in the list
        client.services()
                .inNamespace("default")
                .resource(new ServiceBuilder()
                        .withNewMetadata()
                        .withName("plain")
                        .endMetadata()
                        .withNewSpec()
                        .withType("ClusterIP")
                        .addNewPort()
                        .withPort(80)
                        .endPort()
                        .endSpec()
                        .build())
                .create();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    CliRun lbk8s(String... args) {
        return CliRun.of(kubeconfig, args);
    }

    void pool(String name, boolean autoAssign, String... addresses) {
        pool(name, autoAssign, false, addresses);
    }

    void pool(String name, boolean autoAssign, boolean avoidBuggyIPs, String... addresses) {
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("addresses", List.of(addresses));
        spec.put("autoAssign", autoAssign);
        spec.put("avoidBuggyIPs", avoidBuggyIPs);
        client.genericKubernetesResources(ConfigResources.IP_ADDRESS_POOLS)
                .inNamespace(NS)
                .resource(new GenericKubernetesResourceBuilder()
                        .withApiVersion("metallb.io/v1beta1")
                        .withKind("IPAddressPool")
                        .withNewMetadata()
                        .withName(name)
                        .withNamespace(NS)
                        .endMetadata()
                        .addToAdditionalProperties("spec", spec)
                        .build())
                .create();
    }

    Service service(String namespace, String name, String lbClass, String ip, String pool) {
        var builder = new ServiceBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(namespace)
                .endMetadata()
                .withNewSpec()
                .withType("LoadBalancer")
                .withLoadBalancerClass(lbClass)
                .addNewPort()
                .withPort(80)
                .endPort()
                .endSpec();
        if (pool != null) {
            builder.editMetadata()
                    .addToAnnotations(Annotations.ALLOCATED_FROM_POOL, pool)
                    .endMetadata();
        }
        Service created = client.services()
                .inNamespace(namespace)
                .resource(builder.build())
                .create();
        if (ip == null) {
            return created;
        }
        created.setStatus(new io.fabric8.kubernetes.api.model.ServiceStatusBuilder()
                .withNewLoadBalancer()
                .withIngress(new LoadBalancerIngressBuilder()
                        .withIp(ip)
                        .withIpMode("VIP")
                        .build())
                .endLoadBalancer()
                .build());
        return client.services().inNamespace(namespace).resource(created).updateStatus();
    }

    void l2Status(Service service, String node, String iface) {
        String ns = service.getMetadata().getNamespace();
        String name = service.getMetadata().getName();
        var resources =
                client.genericKubernetesResources(ServiceL2Statuses.CONTEXT).inNamespace(NS);
        GenericKubernetesResource created = resources
                .resource(new GenericKubernetesResourceBuilder()
                        .withApiVersion("metallb.io/v1beta1")
                        .withKind("ServiceL2Status")
                        .withNewMetadata()
                        .withName("l2-" + ns + "-" + name + "-" + node)
                        .withNamespace(NS)
                        .addToLabels(ServiceL2Statuses.SERVICE_NAME_LABEL, name)
                        .addToLabels(ServiceL2Statuses.SERVICE_NAMESPACE_LABEL, ns)
                        .addToLabels(ServiceL2Statuses.NODE_LABEL, node)
                        .endMetadata()
                        .build())
                .create();
        created.setAdditionalProperty("status", Map.of("node", node, "interfaces", List.of(Map.of("name", iface))));
        resources.resource(created).updateStatus();
    }

    void event(Service service, String reason, String message, String component, String time) {
        String ns = service.getMetadata().getNamespace();
        client.v1()
                .events()
                .inNamespace(ns)
                .resource(new EventBuilder()
                        .withNewMetadata()
                        .withName(service.getMetadata().getName() + "." + reason.toLowerCase() + "." + time.hashCode())
                        .withNamespace(ns)
                        .endMetadata()
                        .withNewInvolvedObject()
                        .withKind("Service")
                        .withApiVersion("v1")
                        .withName(service.getMetadata().getName())
                        .withNamespace(ns)
                        .withUid(service.getMetadata().getUid())
                        .endInvolvedObject()
                        .withType("Warning")
                        .withReason(reason)
                        .withMessage(message)
                        .withNewSource()
                        .withComponent(component)
                        .endSource()
                        .withFirstTimestamp(time)
                        .withLastTimestamp(time)
                        .withCount(1)
                        .build())
                .create();
    }

    static void write(String name, String text) {
        try {
            java.nio.file.Files.createDirectories(Path.of("target", "status-examples"));
            java.nio.file.Files.writeString(Path.of("target", "status-examples", name), text);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The table's row whose first two cells are namespace and name, split on runs of 3+ spaces. */
    static List<String> row(String table, String namespace, String name) {
        return table.lines()
                .map(l -> List.of(l.split(" {3,}")))
                .filter(cells -> cells.size() > 1
                        && cells.get(0).equals(namespace)
                        && cells.get(1).equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no row " + namespace + "/" + name + " in\n" + table));
    }

    @Test
    void statusListsPoolsWithTheirUseAndEveryLoadBalancerService() {
        CliRun run = lbk8s("status");
        assertThat(run.code()).as(run.err()).isZero();
        assertThat(run.err()).isEmpty();
        String out = run.out();
        write("status.txt", out); // for a person to read
        // pools: lan has 11 addresses, 3 used (web, api, db); reserved is untouched
        assertThat(out).containsPattern("(?m)^POOL +ADDRESSES +AUTO-ASSIGN +USED +FREE$");
        assertThat(out).containsPattern("(?m)^lan +10\\.5\\.0\\.200-10\\.5\\.0\\.202,10\\.5\\.0\\.240/29 +true +3 +8$");
        assertThat(out).containsPattern("(?m)^reserved +10\\.5\\.1\\.0/28 +false +0 +16$");

        assertThat(row(out, "default", "web"))
                .containsExactly("default", "web", "10.5.0.200", "lan", "lb-k8s-node-3", "Announced", "-");
        assertThat(row(out, "shop", "db"))
                .containsExactly("shop", "db", "10.5.0.241", "lan", "lb-k8s-node-4", "Announced", "-");
        assertThat(row(out, "default", "api"))
                .containsExactly(
                        "default",
                        "api",
                        "10.5.0.201",
                        "lan",
                        "-",
                        "Assigned",
                        "no speaker may announce 10.5.0.201: every node with a ready endpoint is excluded");
        assertThat(row(out, "default", "queue"))
                .containsExactly(
                        "default",
                        "queue",
                        "<pending>",
                        "-",
                        "-",
                        "Pending",
                        "requested IP 10.5.2.1 is not in the requested pool \"reserved\"");
        assertThat(row(out, "default", "other"))
                .containsExactly(
                        "default",
                        "other",
                        "<pending>",
                        "-",
                        "-",
                        "NotServed",
                        "loadBalancerClass example.com/other is not served by lbk8s");
        assertThat(out).doesNotContain("plain");
        // sorted by namespace, then name
        assertThat(out.lines()
                        .filter(l -> l.startsWith("default ") || l.startsWith("shop "))
                        .map(l -> l.split(" +")[1])
                        .toList())
                .containsExactly("api", "other", "queue", "web", "db");
    }

    @Test
    void statusShowsEachNodesBgpSessionsAndWhereAServiceIsAdvertised() throws Exception {
        // api advertised over BGP from two nodes (ECMP), as their speakers write it; node-2's session is not up
        var api = new io.lbk8s.service.ServiceKey("default", "api");
        List<AutoCloseable> writers = new java.util.ArrayList<>();
        for (String node : List.of("lb-k8s-node-1", "lb-k8s-node-2")) {
            var advertised = new ServiceBgpStatuses(client, NS, node, other -> true);
            advertised.publish(Map.of(api, java.util.Set.of("tor")), java.util.Set.of());
            writers.add(advertised);
            var sessions = new BgpSessionStates(client, NS, node);
            sessions.publish(Map.of(
                    "tor",
                    new BgpSessionStates.State(
                            "tor",
                            node.endsWith("1") ? "Established" : "Active",
                            node.endsWith("1") ? "Up" : "N/A",
                            node.endsWith("1") ? List.of("IPv6 unicast") : List.of())));
            writers.add(sessions);
        }
        org.awaitility.Awaitility.await()
                .atMost(java.time.Duration.ofSeconds(10))
                .until(() -> client.genericKubernetesResources(BgpSessionStates.CONTEXT)
                                        .inNamespace(NS)
                                        .list()
                                        .getItems()
                                        .size()
                                == 2
                        && client.genericKubernetesResources(ServiceBgpStatuses.CONTEXT)
                                        .inNamespace(NS)
                                        .list()
                                        .getItems()
                                        .size()
                                == 2);
        for (AutoCloseable writer : writers) {
            writer.close();
        }

        CliRun run = lbk8s("status");
        assertThat(run.code()).as(run.err()).isZero();
        write("status-bgp.txt", run.out());
        assertThat(row(run.out(), "default", "api"))
                .containsExactly(
                        "default", "api", "10.5.0.201", "lan", "lb-k8s-node-1,lb-k8s-node-2", "Announced", "-");
        assertThat(run.out())
                .containsPattern("(?m)^BGP SESSION ON +PEER +STATE +BFD +FAMILIES DISABLED$")
                .containsPattern("(?m)^lb-k8s-node-1 +tor +Established +Up +IPv6 unicast$")
                .containsPattern("(?m)^lb-k8s-node-2 +tor +Active +N/A +-$");

        CliRun detail = lbk8s("status", "svc/api", "-n", "default");
        assertThat(detail.code()).as(detail.err()).isZero();
        assertThat(detail.out())
                .containsPattern("Advertised over BGP by:\n"
                        + "  lb-k8s-node-1 to tor \\(servicebgpstatus bgp-lb-k8s-node-1-[0-9a-f]{12}\\)\n"
                        + "  lb-k8s-node-2 to tor \\(servicebgpstatus bgp-lb-k8s-node-2-[0-9a-f]{12}\\)\n");
    }

    @Test
    @SuppressWarnings("unchecked")
    void aPoolAvoidingBuggyIpsCountsOnlyWhatItHandsOut() {
        // a /24 hands out 254 addresses with avoidBuggyIPs (no .0, no .255); one Service holds one of them
        pool("buggy", true, true, "10.0.0.0/24");
        service("default", "old", null, "10.0.0.1", "buggy");

        CliRun run = lbk8s("status");
        assertThat(run.code()).as(run.err()).isZero();
        assertThat(run.out()).containsPattern("(?m)^buggy +10\\.0\\.0\\.0/24 +true +1 +253$");

        CliRun json = lbk8s("status", "-o", "json");
        List<Map<String, Object>> pools = (List<Map<String, Object>>)
                JsonMapper.builder().build().readValue(json.out(), Map.class).get("pools");
        assertThat(pools)
                .filteredOn(p -> p.get("name").equals("buggy"))
                .singleElement()
                .satisfies(p -> assertThat(p)
                        .containsEntry("size", "254")
                        .containsEntry("used", 1)
                        .containsEntry("free", "253"));
    }

    @Test
    void statusOfOneNamespace() {
        CliRun run = lbk8s("status", "-n", "shop");
        assertThat(run.code()).as(run.err()).isZero();
        assertThat(row(run.out(), "shop", "db")).contains("Announced");
        assertThat(run.out()).doesNotContain("web", "queue");
        // pools count every namespace's Services even when listing one: the pool is shared
        assertThat(run.out()).containsPattern("(?m)^lan +\\S+ +true +3 +8$");
    }

    @Test
    void statusSvcExplainsOneService() {
        CliRun web = lbk8s("status", "svc/web", "-n", "default");
        assertThat(web.code()).as(web.err()).isZero();
        assertThat(web.out())
                .contains(
                        "Name:              web\n",
                        "Namespace:         default\n",
                        "Type:              LoadBalancer\n",
                        "External IPs:      10.5.0.200\n",
                        "Pool:              lan (10.5.0.200-10.5.0.202,10.5.0.240/29; 3 used, 8 free)\n",
                        "State:             Announced\n",
                        "Announced by:\n  lb-k8s-node-3 on eth0 (servicel2status l2-default-web-lb-k8s-node-3)\n",
                        "Events: <none>\n");

        CliRun queue = lbk8s("status", "service/queue", "-n", "default");
        assertThat(queue.code()).as(queue.err()).isZero();
        write("status-svc.txt", web.out() + "\n" + queue.out());
        assertThat(queue.out())
                .contains(
                        "External IPs:      <pending>\n",
                        "Pool:              <none>\n",
                        "State:             Pending: requested IP 10.5.2.1 is not in the requested pool \"reserved\"\n",
                        "Announced by: <none>\n");
        // both events, oldest first, with who said it
        List<String> events = queue.out()
                .lines()
                .dropWhile(l -> !l.startsWith("Events:"))
                .skip(1)
                .toList();
        assertThat(events.get(0)).containsPattern("TIME +TYPE +REASON +FROM +MESSAGE");
        assertThat(events.get(1))
                .contains(
                        "2026-01-01T09:00:00Z",
                        "Warning",
                        "AllocationFailed",
                        "lbk8s-controller",
                        "requested IP 10.5.2.1 is not in the requested pool \"reserved\"");
        assertThat(events.get(2)).contains("2026-01-01T09:00:30Z", "Warning", "NotAnnounced", "lbk8s-speaker");

        // the kubeconfig's namespace (default) when -n is not given; the pool found by address for db
        CliRun db = lbk8s("status", "svc/db", "-n", "shop");
        assertThat(db.out())
                .contains("Pool:              lan (", "State:             Announced\n", "lb-k8s-node-4 on eth0");
        CliRun api = lbk8s("status", "svc/api");
        assertThat(api.code()).as(api.err()).isZero();
        assertThat(api.out()).contains("State:             Assigned: no speaker may announce 10.5.0.201");
    }

    @Test
    void statusSvcOfANonLoadBalancerServiceSaysSo() {
        CliRun plain = lbk8s("status", "svc/plain", "-n", "default");
        assertThat(plain.code()).as(plain.err()).isZero();
        assertThat(plain.out())
                .contains("Type:              ClusterIP\n")
                .contains("State:             NotServed: type is ClusterIP, not LoadBalancer\n");
    }

    @Test
    void aMissingServiceIsAOneLineError() {
        CliRun run = lbk8s("status", "svc/nope", "-n", "default");
        assertThat(run.code()).isNotZero();
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).isEqualTo("error: service default/nope not found\n");

        CliRun bad = lbk8s("status", "deployment/web");
        assertThat(bad.code()).isNotZero();
        assertThat(bad.err()).isEqualTo("error: \"deployment/web\" is not svc/NAME (status explains Services only)\n");
    }

    @Test
    @SuppressWarnings("unchecked")
    void statusAsYamlAndJson() {
        for (String format : List.of("yaml", "json")) {
            CliRun run = lbk8s("status", "-o", format);
            assertThat(run.code()).as(run.err()).isZero();
            Map<String, Object> report = format.equals("json")
                    ? JsonMapper.builder().build().readValue(run.out(), Map.class)
                    : YAMLMapper.builder().build().readValue(run.out(), Map.class);
            List<Map<String, Object>> pools = (List<Map<String, Object>>) report.get("pools");
            assertThat(pools).extracting(p -> p.get("name")).containsExactly("lan", "reserved");
            assertThat(pools.getFirst())
                    .containsEntry("used", 3)
                    .containsEntry("free", "8")
                    .containsEntry("size", "11")
                    .containsEntry("autoAssign", true);
            List<Map<String, Object>> services = (List<Map<String, Object>>) report.get("services");
            Map<String, Object> queue = services.stream()
                    .filter(s -> s.get("name").equals("queue"))
                    .findFirst()
                    .orElseThrow();
            assertThat(queue)
                    .containsEntry("state", "Pending")
                    .containsEntry("reason", "requested IP 10.5.2.1 is not in the requested pool \"reserved\"")
                    .containsEntry("ips", List.of());
            Map<String, Object> web = services.stream()
                    .filter(s -> s.get("name").equals("web"))
                    .findFirst()
                    .orElseThrow();
            assertThat(web)
                    .containsEntry("ips", List.of("10.5.0.200"))
                    .containsEntry("pool", "lan")
                    .containsEntry("nodes", List.of("lb-k8s-node-3"))
                    .containsEntry("state", "Announced");
            assertThat((List<?>) report.get("configProblems")).isEmpty();

            CliRun one = lbk8s("status", "svc/web", "-n", "default", "-o", format);
            assertThat(one.code()).as(one.err()).isZero();
            Map<String, Object> detail = format.equals("json")
                    ? JsonMapper.builder().build().readValue(one.out(), Map.class)
                    : YAMLMapper.builder().build().readValue(one.out(), Map.class);
            assertThat((Map<String, Object>) detail.get("service")).containsEntry("name", "web");
            assertThat((Map<String, Object>) detail.get("pool"))
                    .containsEntry("name", "lan")
                    .containsEntry("used", 3);
            assertThat((List<Map<String, Object>>) detail.get("announcements"))
                    .singleElement()
                    .satisfies(a -> assertThat(a)
                            .containsEntry("node", "lb-k8s-node-3")
                            .containsEntry("interfaces", List.of("eth0")));
        }
    }

    // ---- the controllers: who leads, and the address claims ----

    /** The Lease as the leader election writes it: holder, duration, and when it was last renewed. */
    void lease(String holder, int durationSeconds, ZonedDateTime renewed) {
        var leases = client.leases().inNamespace(NS);
        leases.withName(ClusterNames.CONTROLLER_LEASE).delete();
        leases.resource(new LeaseBuilder()
                        .withNewMetadata()
                        .withName(ClusterNames.CONTROLLER_LEASE)
                        .withNamespace(NS)
                        .endMetadata()
                        .withNewSpec()
                        .withHolderIdentity(holder)
                        .withLeaseDurationSeconds(durationSeconds)
                        .withAcquireTime(renewed.minusMinutes(5))
                        .withRenewTime(renewed)
                        .endSpec()
                        .build())
                .create();
    }

    void claim(String address) {
        client.genericKubernetesResources(IpAddressClaims.CONTEXT)
                .resource(new GenericKubernetesResourceBuilder()
                        .withApiVersion("lbk8s.io/v1alpha1")
                        .withKind("IPAddressClaim")
                        .withNewMetadata()
                        .withName(address)
                        .endMetadata()
                        .addToAdditionalProperties(
                                "spec",
                                Map.of(
                                        "address",
                                        address,
                                        "pool",
                                        "lan",
                                        "services",
                                        List.of(Map.of("namespace", "default", "name", "web", "uid", "uid-web"))))
                        .build())
                .create();
    }

    String controllerLines() {
        CliRun run = lbk8s("status");
        assertThat(run.code()).as(run.err()).isZero();
        // the last paragraph
        String out = run.out().stripTrailing();
        return out.substring(out.lastIndexOf("\n\n") + 2);
    }

    @Test
    void statusSaysWhichControllerLeadsAndWhenNoneDoes() {
        // no Lease: election off, or nothing started
        assertThat(controllerLines())
                .startsWith("Controller leader: none (no Lease lbk8s-controller: leader election is off "
                        + "(--leader-elect=false), or no controller has started)");

        // renewed just now, valid 3 s: its holder leads
        lease("lbk8s-controller-7d9f8-x2b4q", 3, ZonedDateTime.now(ZoneOffset.UTC));
        assertThat(controllerLines().lines().findFirst().orElseThrow())
                .matches("Controller leader: lbk8s-controller-7d9f8-x2b4q \\(renewed [0-3]s ago\\)");

        // not renewed for a minute: nobody leads, and the holder is named
        lease(
                "lbk8s-controller-7d9f8-x2b4q",
                3,
                ZonedDateTime.now(ZoneOffset.UTC).minusSeconds(60));
        assertThat(controllerLines())
                .containsPattern(
                        "^Controller leader: none \\(lbk8s-controller-7d9f8-x2b4q last renewed the Lease "
                                + "6[0-3]s ago, longer than its 3s: it stopped or cannot reach the API server, and no standby took over\\)");

        // released by a leader that stopped cleanly
        lease("", 3, ZonedDateTime.now(ZoneOffset.UTC));
        assertThat(controllerLines())
                .startsWith("Controller leader: none (the Lease has no holder: the last leader stepped down)");
    }

    @Test
    @SuppressWarnings("unchecked")
    void statusCountsTheAddressClaimsAgainstTheAddressesServicesShow() {
        // web, api and db show an address; other (another class) shows none
        assertThat(controllerLines())
                .contains("\nAddress claims: 0 IPAddressClaim(s); 3 address(es) in Services' status");
        claim("10.5.0.200");
        claim("10.5.0.201");
        assertThat(controllerLines())
                .contains("\nAddress claims: 2 IPAddressClaim(s); 3 address(es) in Services' status");
        // an address two Services share counts once, as it has one claim
        Service shared = service("shop", "db-replica", null, "10.5.0.241", "lan");
        assertThat(shared.getStatus().getLoadBalancer().getIngress()).isNotEmpty();
        assertThat(controllerLines()).contains("; 3 address(es) in Services' status");

        lease("lbk8s-controller-7d9f8-x2b4q", 3, ZonedDateTime.now(ZoneOffset.UTC));
        CliRun json = lbk8s("status", "-o", "json");
        assertThat(json.code()).as(json.err()).isZero();
        Map<String, Object> controller = (Map<String, Object>)
                JsonMapper.builder().build().readValue(json.out(), Map.class).get("controller");
        assertThat(controller)
                .containsEntry("leader", "lbk8s-controller-7d9f8-x2b4q")
                .containsEntry("claims", 2)
                .containsEntry("addresses", 3);
        assertThat(controllerLines()).startsWith("Controller leader: lbk8s-controller-7d9f8-x2b4q (renewed ");
    }
}
