package io.lbk8s.config;

/** Where a piece of configuration came from, so that problems can be reported on the right object. */
public record ConfigOrigin(Kind kind, String namespace, String name) {

    public enum Kind {
        IPAddressPool,
        L2Advertisement,
        ConfigMap,
        BGPPeer,
        BGPAdvertisement,
        Community,
        BFDProfile
    }

    @Override
    public String toString() {
        return kind + " " + namespace + "/" + name;
    }
}
