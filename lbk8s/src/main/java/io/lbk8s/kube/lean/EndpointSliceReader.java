package io.lbk8s.kube.lean;

import static io.lbk8s.kube.lean.JsonFields.bool;
import static io.lbk8s.kube.lean.JsonFields.fields;
import static io.lbk8s.kube.lean.JsonFields.list;
import static io.lbk8s.kube.lean.JsonFields.object;
import static io.lbk8s.kube.lean.JsonFields.skip;
import static io.lbk8s.kube.lean.JsonFields.string;

import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointConditions;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import tools.jackson.core.JsonParser;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.ValueDeserializer;

/** What {@link io.lbk8s.kube.CompactEndpointSliceStore} keeps of an EndpointSlice, and its name and address type. */
final class EndpointSliceReader extends ValueDeserializer<EndpointSlice> {
    @Override
    public EndpointSlice deserialize(JsonParser parser, DeserializationContext context) {
        EndpointSlice slice = new EndpointSlice();
        return object(parser, slice, (name, p) -> {
            switch (name) {
                case "addressType" -> slice.setAddressType(string(p));
                case "endpoints" -> slice.setEndpoints(list(p, EndpointSliceReader::endpoint));
                default -> skip(p);
            }
        });
    }

    private static Endpoint endpoint(JsonParser parser) {
        Endpoint endpoint = new Endpoint();
        fields(parser, (name, p) -> {
            switch (name) {
                case "nodeName" -> endpoint.setNodeName(string(p));
                case "conditions" -> {
                    EndpointConditions conditions = new EndpointConditions();
                    fields(p, (field, q) -> {
                        switch (field) {
                            case "ready" -> conditions.setReady(bool(q));
                            case "serving" -> conditions.setServing(bool(q));
                            case "terminating" -> conditions.setTerminating(bool(q));
                            default -> skip(q);
                        }
                    });
                    endpoint.setConditions(conditions);
                }
                default -> skip(p);
            }
        });
        return endpoint;
    }
}
