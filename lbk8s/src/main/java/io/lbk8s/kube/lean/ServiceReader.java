package io.lbk8s.kube.lean;

import static io.lbk8s.kube.lean.JsonFields.bool;
import static io.lbk8s.kube.lean.JsonFields.field;
import static io.lbk8s.kube.lean.JsonFields.fields;
import static io.lbk8s.kube.lean.JsonFields.integer;
import static io.lbk8s.kube.lean.JsonFields.list;
import static io.lbk8s.kube.lean.JsonFields.object;
import static io.lbk8s.kube.lean.JsonFields.skip;
import static io.lbk8s.kube.lean.JsonFields.string;
import static io.lbk8s.kube.lean.JsonFields.stringMap;

import io.fabric8.kubernetes.api.model.LoadBalancerIngress;
import io.fabric8.kubernetes.api.model.LoadBalancerStatus;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServiceSpec;
import io.fabric8.kubernetes.api.model.ServiceStatus;
import tools.jackson.core.JsonParser;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.ValueDeserializer;

/** What {@link io.lbk8s.kube.CompactServiceStore} keeps of a Service, and its name. */
final class ServiceReader extends ValueDeserializer<Service> {
    @Override
    public Service deserialize(JsonParser parser, DeserializationContext context) {
        Service service = new Service();
        return object(parser, service, (name, p) -> {
            switch (name) {
                case "spec" -> service.setSpec(spec(p));
                case "status" -> service.setStatus(status(p));
                default -> skip(p);
            }
        });
    }

    private static ServiceSpec spec(JsonParser parser) {
        ServiceSpec spec = new ServiceSpec();
        fields(parser, (name, p) -> {
            switch (name) {
                case "type" -> spec.setType(string(p));
                case "loadBalancerClass" -> spec.setLoadBalancerClass(string(p));
                case "loadBalancerIP" -> spec.setLoadBalancerIP(string(p));
                case "ipFamilies" -> spec.setIpFamilies(list(p, JsonFields::string));
                case "ipFamilyPolicy" -> spec.setIpFamilyPolicy(string(p));
                case "ports" -> spec.setPorts(list(p, ServiceReader::port));
                case "externalTrafficPolicy" -> spec.setExternalTrafficPolicy(string(p));
                case "publishNotReadyAddresses" -> spec.setPublishNotReadyAddresses(bool(p));
                case "selector" -> spec.setSelector(stringMap(p));
                default -> skip(p);
            }
        });
        return spec;
    }

    private static ServicePort port(JsonParser parser) {
        ServicePort port = new ServicePort();
        fields(parser, (name, p) -> {
            switch (name) {
                case "name" -> port.setName(string(p));
                case "protocol" -> port.setProtocol(string(p));
                case "port" -> port.setPort(integer(p));
                default -> skip(p);
            }
        });
        return port;
    }

    private static ServiceStatus status(JsonParser parser) {
        ServiceStatus status = new ServiceStatus();
        field(parser, "loadBalancer", p -> {
            LoadBalancerStatus loadBalancer = new LoadBalancerStatus();
            field(p, "ingress", q -> loadBalancer.setIngress(list(q, ServiceReader::ingress)));
            status.setLoadBalancer(loadBalancer);
        });
        return status;
    }

    private static LoadBalancerIngress ingress(JsonParser parser) {
        LoadBalancerIngress ingress = new LoadBalancerIngress();
        fields(parser, (name, p) -> {
            switch (name) {
                case "ip" -> ingress.setIp(string(p));
                case "hostname" -> ingress.setHostname(string(p));
                case "ipMode" -> ingress.setIpMode(string(p));
                default -> skip(p);
            }
        });
        return ingress;
    }
}
