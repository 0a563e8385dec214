package io.lbk8s.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ResourcePathTest {

    @Test
    void parsesCoreGroupNamespacedAndClusterScopedPaths() {
        var svc = ResourcePath.parse("/api/v1/namespaces/default/services/web/status?fieldManager=x")
                .orElseThrow();
        assertThat(svc)
                .extracting(
                        ResourcePath::group,
                        ResourcePath::version,
                        ResourcePath::namespace,
                        ResourcePath::plural,
                        ResourcePath::name,
                        ResourcePath::subresource)
                .containsExactly("", "v1", "default", "services", "web", "status");
        assertThat(svc.query()).containsEntry("fieldManager", "x");
        assertThat(svc.objectPath()).isEqualTo("/api/v1/namespaces/default/services/web");

        var ns = ResourcePath.parse("/api/v1/namespaces/default").orElseThrow();
        assertThat(ns.plural()).isEqualTo("namespaces");
        assertThat(ns.name()).isEqualTo("default");
        var nsStatus = ResourcePath.parse("/api/v1/namespaces/default/status").orElseThrow();
        assertThat(nsStatus.plural()).isEqualTo("namespaces");
        assertThat(nsStatus.name()).isEqualTo("default");
        assertThat(nsStatus.isStatus()).isTrue();

        var pools = ResourcePath.parse("/apis/metallb.io/v1beta1/ipaddresspools?labelSelector=a%20in%20(b)")
                .orElseThrow();
        assertThat(pools.isList()).isTrue();
        assertThat(pools.namespace()).isNull();
        assertThat(pools.query()).containsEntry("labelSelector", "a in (b)");

        assertThat(ResourcePath.parse("/apis/metallb.io/v1beta1")).isEmpty();
        assertThat(ResourcePath.parse("/version")).isEmpty();
    }

    @Test
    void labelSelectorGrammar() {
        var reqs = Selectors.parseLabelSelector("a in (x, y),b notin (z),!c,d,e!=1,f==2,g=3");
        assertThat(reqs)
                .containsExactly(
                        new Selectors.In("a", java.util.Set.of("x", "y")),
                        new Selectors.NotIn("b", java.util.Set.of("z")),
                        new Selectors.DoesNotExist("c"),
                        new Selectors.Exists("d"),
                        new Selectors.NotEquals("e", "1"),
                        new Selectors.Equals("f", "2"),
                        new Selectors.Equals("g", "3"));
    }
}
