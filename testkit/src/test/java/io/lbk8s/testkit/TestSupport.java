package io.lbk8s.testkit;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import tools.jackson.databind.JsonNode;

final class TestSupport {

    private TestSupport() {}

    static Service loadBalancer(String name) {
        return new ServiceBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace("default")
                .addToLabels("app", name)
                .endMetadata()
                .withNewSpec()
                .withType("LoadBalancer")
                .addNewPort()
                .withName("http")
                .withPort(80)
                .withProtocol("TCP")
                .endPort()
                .addToSelector("app", name)
                .endSpec()
                .build();
    }

    static CustomResourceDefinition ipAddressPoolCrd() {
        try (InputStream in = TestSupport.class.getResourceAsStream("/crds/metallb.io_ipaddresspools.yaml")) {
            return Serialization.unmarshal(in, CustomResourceDefinition.class);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static CustomResourceDefinition createIpAddressPoolCrd(KubernetesClient client) {
        return client.apiextensions()
                .v1()
                .customResourceDefinitions()
                .resource(ipAddressPoolCrd())
                .create();
    }

    /** @param warnings the Warning headers */
    record Raw(int code, String body, java.util.List<String> warnings) {
        JsonNode json() {
            return tools.jackson.databind.json.JsonMapper.builder().build().readTree(body);
        }
    }

    private static final HttpClient HTTP = HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(5))
            .version(HttpClient.Version.HTTP_1_1)
            .build();

    static Raw get(TestApiServer server, String path) {
        return send(HttpRequest.newBuilder(URI.create(server.url() + path)).GET());
    }

    static Raw get(TestApiServer server, String path, String accept) {
        return send(HttpRequest.newBuilder(URI.create(server.url() + path))
                .header("Accept", accept)
                .GET());
    }

    static Raw send(TestApiServer server, String method, String path, String contentType, String body) {
        return send(HttpRequest.newBuilder(URI.create(server.url() + path))
                .header("Content-Type", contentType)
                .method(method, HttpRequest.BodyPublishers.ofString(body)));
    }

    private static Raw send(HttpRequest.Builder builder) {
        try {
            HttpResponse<String> r =
                    HTTP.send(builder.timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
            return new Raw(r.statusCode(), r.body(), r.headers().allValues("Warning"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
