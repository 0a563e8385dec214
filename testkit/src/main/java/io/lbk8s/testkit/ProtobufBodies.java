package io.lbk8s.testkit;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.Optional;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Reads the protobuf bodies typed client-go clients send for the few kinds kubectl's generators create
 * ({@code kubectl create namespace|configmap|secret}): the {@code k8s\0} envelope, a runtime.Unknown, and the
 * fields of those kinds (field numbers from k8s.io/api's generated.proto). Other kinds stay unsupported (415).
 */
final class ProtobufBodies {

    private static final byte[] MAGIC = {'k', '8', 's', 0};

    private ProtobufBodies() {}

    /** The JSON of a protobuf body for {@code kind}, or empty if this kind is not read. */
    static Optional<ObjectNode> toJson(byte[] body, String kind) {
        if (body.length < 4 || !Arrays.equals(Arrays.copyOf(body, 4), MAGIC)) {
            throw ApiException.badRequest(
                    "provided data does not appear to be a protobuf message, expected prefix " + "[107 56 115 0]");
        }
        if (!kind.equals("Namespace") && !kind.equals("ConfigMap") && !kind.equals("Secret")) {
            return Optional.empty();
        }
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        Reader unknown = new Reader(body, 4, body.length);
        while (unknown.more()) {
            int tag = unknown.tag();
            switch (tag >>> 3) {
                case 1 -> {
                    Reader typeMeta = unknown.message();
                    while (typeMeta.more()) {
                        int t = typeMeta.tag();
                        switch (t >>> 3) {
                            case 1 -> out.put("apiVersion", typeMeta.string());
                            case 2 -> out.put("kind", typeMeta.string());
                            default -> typeMeta.skip(t);
                        }
                    }
                }
                case 2 -> readObject(unknown.message(), kind, out);
                default -> unknown.skip(tag);
            }
        }
        return Optional.of(out);
    }

    private static void readObject(Reader r, String kind, ObjectNode out) {
        while (r.more()) {
            int tag = r.tag();
            int field = tag >>> 3;
            if (field == 1) {
                readMeta(r.message(), out.putObject("metadata"));
                continue;
            }
            switch (kind + "/" + field) {
                case "Namespace/2" -> {
                    Reader spec = r.message();
                    ObjectNode s = out.putObject("spec");
                    while (spec.more()) {
                        int t = spec.tag();
                        if (t >>> 3 == 1) {
                            (s.has("finalizers")
                                            ? (tools.jackson.databind.node.ArrayNode) s.get("finalizers")
                                            : s.putArray("finalizers"))
                                    .add(spec.string());
                        } else {
                            spec.skip(t);
                        }
                    }
                }
                case "ConfigMap/2", "Secret/4" ->
                    mapEntry(r.message(), object(out, kind.equals("Secret") ? "stringData" : "data"), false);
                case "ConfigMap/3" -> mapEntry(r.message(), object(out, "binaryData"), true);
                case "Secret/2" -> mapEntry(r.message(), object(out, "data"), true);
                case "Secret/3" -> out.put("type", r.string());
                case "ConfigMap/4", "Secret/5" -> out.put("immutable", r.varint() != 0);
                default -> r.skip(tag);
            }
        }
    }

    private static void readMeta(Reader r, ObjectNode meta) {
        while (r.more()) {
            int tag = r.tag();
            switch (tag >>> 3) {
                case 1 -> putUnlessEmpty(meta, "name", r.string());
                case 2 -> putUnlessEmpty(meta, "generateName", r.string());
                case 3 -> putUnlessEmpty(meta, "namespace", r.string());
                case 11 -> mapEntry(r.message(), object(meta, "labels"), false);
                case 12 -> mapEntry(r.message(), object(meta, "annotations"), false);
                default -> r.skip(tag);
            }
        }
    }

    /** Go's zero values are absent fields in JSON (omitempty). */
    private static void putUnlessEmpty(ObjectNode meta, String field, String value) {
        if (!value.isEmpty()) {
            meta.put(field, value);
        }
    }

    private static ObjectNode object(ObjectNode parent, String field) {
        return parent.get(field) instanceof ObjectNode o ? o : parent.putObject(field);
    }

    private static void mapEntry(Reader entry, ObjectNode into, boolean bytes) {
        String key = "";
        String value = "";
        while (entry.more()) {
            int t = entry.tag();
            switch (t >>> 3) {
                case 1 -> key = entry.string();
                case 2 -> value = bytes ? Base64.getEncoder().encodeToString(entry.bytes()) : entry.string();
                default -> entry.skip(t);
            }
        }
        into.put(key, value);
    }

    /** Protobuf wire format over a slice of bytes. */
    private static final class Reader {
        private final byte[] data;
        private int pos;
        private final int end;

        Reader(byte[] data, int pos, int end) {
            this.data = data;
            this.pos = pos;
            this.end = end;
        }

        boolean more() {
            return pos < end;
        }

        int tag() {
            return (int) varint();
        }

        long varint() {
            long v = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                if (pos >= end) {
                    throw ApiException.badRequest("truncated protobuf body");
                }
                byte b = data[pos++];
                v |= (long) (b & 0x7f) << shift;
                if (b >= 0) {
                    return v;
                }
            }
            throw ApiException.badRequest("malformed protobuf varint");
        }

        byte[] bytes() {
            int length = (int) varint();
            if (length < 0 || pos + length > end) {
                throw ApiException.badRequest("truncated protobuf body");
            }
            byte[] out = Arrays.copyOfRange(data, pos, pos + length);
            pos += length;
            return out;
        }

        String string() {
            return new String(bytes(), StandardCharsets.UTF_8);
        }

        Reader message() {
            int length = (int) varint();
            if (length < 0 || pos + length > end) {
                throw ApiException.badRequest("truncated protobuf body");
            }
            Reader r = new Reader(data, pos, pos + length);
            pos += length;
            return r;
        }

        void skip(int tag) {
            switch (tag & 7) {
                case 0 -> varint();
                case 1 -> pos += 8;
                case 2 -> bytes();
                case 5 -> pos += 4;
                default -> throw ApiException.badRequest("unsupported protobuf wire type " + (tag & 7));
            }
        }
    }
}
