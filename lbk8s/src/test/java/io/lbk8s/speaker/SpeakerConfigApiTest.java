package io.lbk8s.speaker;

import io.lbk8s.config.ConfigSources;
import io.lbk8s.kube.ConfigResources;
import io.lbk8s.kube.ConfigurationStates;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The speaker judges configuration objects one by one, as the controller does: a refused L2Advertisement does not
 * keep it from using a valid pool; and a speaker that starts while a pool's current version is refused uses the
 * version the controller keeps.
 */
class SpeakerConfigApiTest {

    @Test
    void aRefusedObjectDoesNotHideTheValidOnes() throws Exception {
        try (OneNodeCluster cluster = OneNodeCluster.start()) {
            cluster.configure(
                    ConfigResources.L2_ADVERTISEMENTS,
                    "L2Advertisement",
                    "refused",
                    Map.of("serviceSelectors", List.of(Map.of("matchLabels", Map.of("app", "web")))));
            cluster.speaker(0).start();
            cluster.configure(
                    ConfigResources.IP_ADDRESS_POOLS,
                    "IPAddressPool",
                    "web",
                    Map.of("addresses", List.of("203.0.113.0/28")));
            cluster.loadBalancer("web", "203.0.113.10");
            cluster.awaitNotAnnounced(
                    "web",
                    "no L2Advertisement selects pool \"web\", so no node announces 203.0.113.10",
                    Duration.ofSeconds(15));
        }
    }

    @Test
    void aStartingSpeakerUsesTheVersionOfARefusedPoolTheControllerKeeps() throws Exception {
        try (OneNodeCluster cluster = OneNodeCluster.start()) {
            cluster.configure(
                    ConfigResources.IP_ADDRESS_POOLS,
                    "IPAddressPool",
                    "web",
                    Map.of("addresses", List.of("203.0.113.300/28")));
            // what the controller recorded when it accepted the pool, before the edit it refuses
            ConfigSources accepted = new ConfigSources(
                    List.of(new ConfigSources.RawObject(
                            OneNodeCluster.NS,
                            "web",
                            Map.of(),
                            Map.of("addresses", List.of("203.0.113.0/28")),
                            "2026-12-01T10:00:00Z")),
                    List.of(),
                    List.of());
            new ConfigurationStates(cluster.client, OneNodeCluster.NS, ConfigurationStates.CONTROLLER)
                    .report(true, "", accepted);

            cluster.speaker(0).start();
            cluster.loadBalancer("web", "203.0.113.10");
            cluster.awaitNotAnnounced(
                    "web",
                    "no L2Advertisement selects pool \"web\", so no node announces 203.0.113.10",
                    Duration.ofSeconds(15));
        }
    }
}
