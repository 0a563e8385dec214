package io.lbk8s.address;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class NodeNetworkTest {
    static final String EXAMPLE = "{\"links\":[{\"name\":\"eth0\",\"mac\":\"02:42:ac:12:00:02\",\"prefixes\":[\"172.18.0.2/16\","
            + "\"fc00::2/64\"]}],\"gateways\":[\"172.18.0.1\",\"fc00::1\"]}";

    @Test
    void readsTheSpeakersAnnotationAndWritesItBackTheSame() {
        NodeNetwork network = NodeNetwork.parse(EXAMPLE).orElseThrow();

        assertThat(network).isEqualTo(new NodeNetwork(
                List.of(new NodeNetwork.Link("eth0", "02:42:ac:12:00:02", List.of("172.18.0.2/16", "fc00::2/64"))),
                List.of("172.18.0.1", "fc00::1")));
        assertThat(network.toAnnotation()).isEqualTo(EXAMPLE);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "not json", "[]", "{\"links\":{}}", "{\"links\":[{\"mac\":\"x\"}]}", "{\"gateways\":\"10.0.0.1\"}"})
    void anythingElseIsNoNetwork(String text) {
        assertThat(NodeNetwork.parse(text)).isEmpty();
    }
}
