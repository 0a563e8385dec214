package io.lbk8s.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServiceStatusBuilder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class TableTest {

    private static final String KUBECTL_ACCEPT =
            "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

    @Test
    void kubectlGetTablesShowServiceColumns() {
        try (TestApiServer server = TestApiServer.start()) {
            var web = server.client()
                    .services()
                    .resource(TestSupport.loadBalancer("web"))
                    .create();
            server.client()
                    .services()
                    .resource(new ServiceBuilder(web)
                            .withStatus(new ServiceStatusBuilder()
                                    .withNewLoadBalancer()
                                    .addNewIngress()
                                    .withIp("192.0.2.5")
                                    .endIngress()
                                    .endLoadBalancer()
                                    .build())
                            .build())
                    .updateStatus();

            JsonNode table =
                    TestSupport.get(server, "/api/v1/services", KUBECTL_ACCEPT).json();

            assertThat(table.path("kind").asString()).isEqualTo("Table");
            List<String> columns = new ArrayList<>();
            table.path("columnDefinitions")
                    .values()
                    .forEach(c -> columns.add(c.path("name").asString()));
            assertThat(columns).startsWith("Name", "Type", "Cluster-IP", "External-IP", "Port(s)", "Age");
            JsonNode cells = table.path("rows").get(0).path("cells");
            assertThat(cells.get(0).asString()).isEqualTo("web");
            assertThat(cells.get(1).asString()).isEqualTo("LoadBalancer");
            assertThat(cells.get(3).asString()).isEqualTo("192.0.2.5");
            assertThat(cells.get(4).asString()).matches("80:3\\d{4}/TCP");
            assertThat(table.path("rows")
                            .get(0)
                            .path("object")
                            .path("metadata")
                            .path("namespace")
                            .asString())
                    .isEqualTo("default");
        }
    }
}
