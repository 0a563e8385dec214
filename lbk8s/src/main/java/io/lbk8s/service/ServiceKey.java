package io.lbk8s.service;

/** A Service's identity. */
public record ServiceKey(String namespace, String name) implements Comparable<ServiceKey> {

    @Override
    public int compareTo(ServiceKey other) {
        int byNamespace = namespace.compareTo(other.namespace);
        return byNamespace != 0 ? byNamespace : name.compareTo(other.name);
    }

    @Override
    public String toString() {
        return namespace + "/" + name;
    }
}
