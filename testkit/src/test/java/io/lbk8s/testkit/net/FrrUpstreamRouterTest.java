package io.lbk8s.testkit.net;

import java.io.IOException;
import org.junit.jupiter.api.BeforeAll;

/** FRR 8.4 as the upstream router, GoBGP on the nodes. */
class FrrUpstreamRouterTest extends UpstreamRouterContract {

    @BeforeAll
    static void create() throws IOException {
        createNetwork(FrrUpstreamRouterTest.class);
    }

    @Override
    RouterKind routerKind() {
        return RouterKind.FRR;
    }

    @Override
    RouterKind speakerKind() {
        return RouterKind.GOBGP;
    }

    @Override
    String badPeerAsWords() {
        return "Bad Peer AS";
    }
}
