package io.lbk8s.install;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DetectionTest {
    static NodeFacts node(
            String name, Map<String, String> labels, Map<String, String> annotations, String os, String provider) {
        return new NodeFacts(name, labels, annotations, os, provider, List.of());
    }

    @Test
    void talosByOsImageOrItsLabels() {
        assertThat(Distribution.detect(
                        List.of(node("lb-k8s-controlplane-1", Map.of(), Map.of(), "Talos (v1.14.5)", ""))))
                .isEqualTo(Distribution.TALOS);
        assertThat(Distribution.detect(
                        List.of(node("n1", Map.of(), Map.of("talos.dev/owned-labels", "[]"), "Linux", ""))))
                .isEqualTo(Distribution.TALOS);
    }

    @Test
    void kindByProviderIdOrItsNodeNames() {
        assertThat(Distribution.detect(List.of(
                        node("x", Map.of(), Map.of(), "Debian GNU/Linux 12 (bookworm)", "kind://docker/kind/x"))))
                .isEqualTo(Distribution.KIND);
        assertThat(Distribution.detect(List.of(
                        node("kind-control-plane", Map.of(), Map.of(), "Debian GNU/Linux 12 (bookworm)", ""),
                        node("kind-worker2", Map.of(), Map.of(), "Debian GNU/Linux 12 (bookworm)", ""))))
                .isEqualTo(Distribution.KIND);
    }

    @Test
    void otherwiseOther() {
        assertThat(Distribution.detect(List.of(node("pi-1", Map.of(), Map.of(), "Ubuntu 24.04 LTS", "k3s://pi-1"))))
                .isEqualTo(Distribution.OTHER);
        assertThat(Distribution.detect(List.of())).isEqualTo(Distribution.OTHER);
    }

    @Test
    void dockerNetworksAnswerIsParsed() {
        String json = """
                [{"Name":"kind","Id":"abc","IPAM":{"Driver":"default","Config":[
                    {"Subnet":"172.18.0.0/16","Gateway":"172.18.0.1"},{"Subnet":"fc00:f853:ccd:e793::/64","Gateway":"fc00:f853:ccd:e793::1"}]}},
                 {"Name":"host","IPAM":{"Config":[]}},
                 {"Name":"odd","IPAM":{"Config":[{"Subnet":"not-a-cidr"}]}}]
                """;
        var networks = DockerNetworks.parse(json);
        assertThat(networks)
                .extracting(n -> n.network().toString())
                .containsExactly("172.18.0.0/16", "fc00:f853:ccd:e793::/64");
        assertThat(networks.getFirst().gateway()).map(Object::toString).contains("172.18.0.1");
        assertThat(networks.getFirst().source()).isEqualTo("Docker network kind");
        assertThat(DockerNetworks.parse("garbage")).isEmpty();
        assertThat(DockerNetworks.body("HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n[]"))
                .contains("[]");
        assertThat(DockerNetworks.body("HTTP/1.0 404 Not Found\r\n\r\n{}")).isEmpty();
        assertThat(DockerNetworks.read(java.nio.file.Path.of("/nonexistent/docker.sock")))
                .isEmpty();
    }
}
