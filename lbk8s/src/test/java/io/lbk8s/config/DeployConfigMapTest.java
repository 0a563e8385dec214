package io.lbk8s.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.address.IpRange;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The optional ConfigMap shipped in deploy/ is valid, and does not clash with the pool install writes. */
class DeployConfigMapTest {

    @Test
    void deployConfigMapParsesAndStaysOutOfTheDefaultPool() throws Exception {
        Path repo = Path.of("").toAbsolutePath();
        while (!Files.exists(repo.resolve("deploy/lbk8s-config.yaml"))) {
            repo = repo.getParent();
        }
        String configMap = Files.readString(repo.resolve("deploy/lbk8s-config.yaml"));
        // the pool and L2Advertisement of the generated manifests (the rest is not configuration)
        String installed = java.util.Arrays.stream(
                        Files.readString(repo.resolve("deploy/lbk8s.yaml")).split("\n---\n"))
                .filter(doc -> doc.contains("\nkind: IPAddressPool") || doc.contains("\nkind: L2Advertisement"))
                .reduce((a, b) -> a + "\n---\n" + b)
                .orElseThrow();
        ConfigResult alone = ConfigParser.parse(Fixtures.fromYaml(configMap));
        assertThat(alone.problems()).isEmpty();
        assertThat(alone.config().pools()).singleElement().satisfies(pool -> {
            assertThat(pool.name()).isEqualTo("lan");
            assertThat(pool.ranges()).map(IpRange::text).containsExactly("10.5.0.180-10.5.0.190");
        });
        // applied next to the generated manifests, the two pools coexist
        ConfigResult together = ConfigParser.parse(Fixtures.fromYaml(installed + "\n---\n" + configMap));
        assertThat(together.problems()).noneMatch(p -> p.severity() == ConfigProblem.Severity.ERROR);
        assertThat(together.config().pools()).extracting(AddressPool::name).containsExactlyInAnyOrder("default", "lan");
    }
}
