package io.lbk8s.testkit.net;

import java.io.IOException;
import org.junit.jupiter.api.BeforeAll;

/** BIRD 2.0 as the upstream router, GoBGP on the nodes. */
class BirdUpstreamRouterTest extends UpstreamRouterContract {

    @BeforeAll
    static void create() throws IOException {
        createNetwork(BirdUpstreamRouterTest.class);
    }

    @Override
    RouterKind routerKind() {
        return RouterKind.BIRD;
    }

    @Override
    RouterKind speakerKind() {
        return RouterKind.GOBGP;
    }

    @Override
    String badPeerAsWords() {
        return "Bad peer AS";
    }
}
