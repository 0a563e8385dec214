package io.lbk8s.testkit.net;

import java.io.IOException;
import org.junit.jupiter.api.BeforeAll;

/** GoBGP 3.10 as the upstream router, BIRD on the nodes. */
class GobgpUpstreamRouterTest extends UpstreamRouterContract {

    @BeforeAll
    static void create() throws IOException {
        createNetwork(GobgpUpstreamRouterTest.class);
    }

    @Override
    RouterKind routerKind() {
        return RouterKind.GOBGP;
    }

    @Override
    RouterKind speakerKind() {
        return RouterKind.BIRD;
    }

    @Override
    String badPeerAsWords() {
        return "as number mismatch";
    }
}
