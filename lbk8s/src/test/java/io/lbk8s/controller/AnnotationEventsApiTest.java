package io.lbk8s.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The Events a user sees about the annotations on a Service: said once, however often the Service is reconciled. */
class AnnotationEventsApiTest {
    private ControllerHarness lb;

    @AfterEach
    void tearDown() {
        if (lb != null) {
            lb.close();
        }
    }

    /** Waits until the controller has surely reconciled everything changed so far (a new control Service got its IP). */
    private void settle(String controlName) {
        lb.service(controlName);
        lb.awaitIp(controlName);
    }

    private List<Event> eventsOf(String name, String reason) {
        return lb.events("default", name).stream()
                .filter(e -> reason.equals(e.getReason()))
                .toList();
    }

    private void relabel(String name, String value) {
        lb.client
                .services()
                .inNamespace("default")
                .withName(name)
                .patch(
                        PatchContext.of(PatchType.JSON_MERGE),
                        "{\"metadata\":{\"labels\":{\"touched\":\"" + value + "\"}}}");
    }

    @Test
    void aDeprecatedAnnotationIsReportedOnceHoweverOftenTheServiceIsReconciled() throws Exception {
        lb = ControllerHarness.started();
        lb.pool("legacy", "192.0.2.10-192.0.2.20");
        lb.service(
                "default",
                "old",
                b -> b.editMetadata()
                        .addToLabels("touched", "0")
                        .addToAnnotations("metallb.universe.tf/address-pool", "legacy")
                        .addToAnnotations("metallb.universe.tf/allow-shared-ip", "team-a")
                        .endMetadata());
        lb.awaitIp("old");

        for (int i = 1; i <= 3; i++) {
            relabel("old", String.valueOf(i));
            lb.pool("extra-" + i, "198.51.100." + i + "/32");
            settle("control-" + i);
        }

        assertThat(eventsOf("old", "DeprecatedAnnotation"))
                .extracting(Event::getMessage)
                .containsExactlyInAnyOrder(
                        "annotation metallb.universe.tf/address-pool is deprecated; use metallb.io/address-pool",
                        "annotation metallb.universe.tf/allow-shared-ip is deprecated; use metallb.io/allow-shared-ip");
    }

    @Test
    void aMisspelledAnnotationIsNamedWithTheOneMeantAndTheServiceServedAnyway() throws Exception {
        lb = ControllerHarness.started();
        lb.pool("default", "192.0.2.10-192.0.2.20");
        lb.service(
                "default",
                "typo",
                b -> b.editMetadata()
                        .addToAnnotations("metallb.universe.tf/allow-shared", "team-a")
                        .addToAnnotations("metallb.io/address-pool", "default")
                        .endMetadata());

        assertThat(lb.awaitIp("typo")).isEqualTo("192.0.2.10");
        assertThat(lb.awaitEvent("default", "typo", "UnknownAnnotation").getMessage())
                .isEqualTo("annotation metallb.universe.tf/allow-shared is not one lbk8s knows and is ignored;"
                        + " did you mean metallb.universe.tf/allow-shared-ip (now metallb.io/allow-shared-ip)?");
        assertThat(lb.awaitEvent("default", "typo", "UnknownAnnotation").getType())
                .isEqualTo("Warning");

        // the pool annotation the controller wrote meanwhile is no stranger; nor is the misspelling told twice
        relabel("typo", "1");
        settle("control");
        assertThat(lb.get("default", "typo").getMetadata().getAnnotations())
                .containsKey("metallb.io/ip-allocated-from-pool");
        assertThat(eventsOf("typo", "UnknownAnnotation")).hasSize(1);
    }
}
