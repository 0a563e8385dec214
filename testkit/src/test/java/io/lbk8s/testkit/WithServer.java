package io.lbk8s.testkit;

import io.fabric8.kubernetes.client.KubernetesClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** A fresh test API server and its client for every test method. */
abstract class WithServer {
    TestApiServer server;
    KubernetesClient client;

    @BeforeEach
    void startServer() {
        server = TestApiServer.start();
        client = server.client();
    }

    @AfterEach
    void stopServer() {
        server.close();
    }
}
