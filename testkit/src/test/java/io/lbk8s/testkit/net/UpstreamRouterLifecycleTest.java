package io.lbk8s.testkit.net;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Closing a network with a running router leaves nothing: namespaces, daemons, sockets, FRR's crash-log buffers. */
class UpstreamRouterLifecycleTest {

    @BeforeEach
    void prerequisites() {
        NetworkTests.assumeNetworkCanBeBuilt();
        NetworkTests.assumeRouter(RouterKind.FRR);
        NetworkTests.assumeRouter(RouterKind.GOBGP);
    }

    @Test
    void closeStopsTheRoutersAndRemovesTheirNamespacesAndFiles() throws IOException {
        TestNetwork network = TestNetwork.create(1);
        String id = network.id();
        UpstreamRouter router = network.router();
        FrrRouter frr = router.startFrr(RouterConfig.of(
                64500, router.ipv4(), List.of(RouterPeer.at(network.node(1).ipv4(), 64512))));
        BgpRouter speaker = network.startSpeaker(
                network.node(1),
                RouterKind.GOBGP,
                RouterConfig.of(64512, network.node(1).ipv4(), List.of(RouterPeer.at(router.ipv4(), 64500))));
        List<ProcessHandle> daemons = Stream.concat(
                        Leftovers.pidsIn(router.namespace()).stream(),
                        Leftovers.pidsIn(network.node(1).namespace()).stream())
                .flatMap(pid -> ProcessHandle.of(pid).stream())
                .toList();
        List<Path> crashLogs = daemons.stream()
                .flatMap(p -> p.info().command().stream()
                        .map(c -> Leftovers.FRR_CRASH_LOGS.resolve(Path.of(c).getFileName() + "." + p.pid())))
                .filter(Files::isDirectory)
                .toList();
        assertThat(Leftovers.allNamespaces()).contains("lbk8s-" + id + "-router", "lbk8s-" + id + "-remote");
        assertThat(frr.vtysh("show version")).contains("FRRouting 8.4");
        assertThat(speaker.sessions()).hasSize(1);
        assertThat(crashLogs).as("FRR's crash-log buffers while it runs").isNotEmpty();

        network.close();

        assertThat(Leftovers.allNamespaces()).noneMatch(ns -> ns.startsWith("lbk8s-" + id + "-"));
        assertThat(daemons).hasSizeGreaterThanOrEqualTo(4).noneMatch(ProcessHandle::isAlive);
        assertThat(crashLogs).noneMatch(Files::exists);
        try (Stream<Path> tmp = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            assertThat(tmp.map(p -> p.getFileName().toString())).noneMatch(n -> n.startsWith("lbk8s-testnet-" + id));
        }
        assertThat(frr.isClosed()).isTrue();
    }
}
