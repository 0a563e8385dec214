package io.lbk8s.testkit.validation;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Quantity;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.annotation.JsonDeserialize;

/**
 * The Go type a built-in kind's JSON decodes into, read from fabric8's model classes (their {@code @JsonProperty}
 * fields mirror the Go structs of k8s.io/api), with the Go names the API server's decoding errors use.
 */
public sealed interface GoType {

    /** {@code []v1.ServicePort}, {@code int32}, {@code map[string]string}, ... */
    String goName();

    /** A struct: its JSON fields, resolved on first use (the model is recursive). */
    record Struct(Class<?> model) implements GoType {
        public String goName() {
            return packageOf(model) + "." + model.getSimpleName();
        }

        public Map<String, GoType> fields() {
            return FIELDS.computeIfAbsent(model, GoType::fieldsOf);
        }
    }

    record Slice(GoType element) implements GoType {
        public String goName() {
            return "[]" + element.goName();
        }
    }

    record MapOf(GoType value) implements GoType {
        public String goName() {
            return "map[string]" + value.goName();
        }
    }

    /** A value decoded by Go's encoding/json or by a custom unmarshaller (IntOrString, Quantity). */
    enum Scalar implements GoType {
        STRING("string"),
        INT32("int32"),
        INT64("int64"),
        FLOAT64("float64"),
        BOOL("bool"),
        INT_OR_STRING("intstr.IntOrString"),
        QUANTITY("resource.Quantity");

        private final String goName;

        Scalar(String goName) {
            this.goName = goName;
        }

        public String goName() {
            return goName;
        }
    }

    /** Anything goes (RawExtension, JSON, an interface). */
    record Any() implements GoType {
        public String goName() {
            return "interface {}";
        }
    }

    Map<Class<?>, Map<String, GoType>> FIELDS = new ConcurrentHashMap<>();

    static GoType of(Type type) {
        if (type instanceof ParameterizedType p && p.getRawType() instanceof Class<?> raw) {
            Type[] args = p.getActualTypeArguments();
            if (java.util.List.class.isAssignableFrom(raw)) {
                return new Slice(of(args[0]));
            }
            if (Map.class.isAssignableFrom(raw)) {
                return new MapOf(of(args[1]));
            }
            return new Any();
        }
        if (!(type instanceof Class<?> c)) {
            return new Any();
        }
        if (c == String.class) {
            return Scalar.STRING;
        }
        if (c == Integer.class || c == int.class) {
            return Scalar.INT32;
        }
        if (c == Long.class || c == long.class) {
            return Scalar.INT64;
        }
        if (c == Double.class || c == Float.class || c == double.class) {
            return Scalar.FLOAT64;
        }
        if (c == Boolean.class || c == boolean.class) {
            return Scalar.BOOL;
        }
        if (c == IntOrString.class) {
            return Scalar.INT_OR_STRING;
        }
        if (c == Quantity.class) {
            return Scalar.QUANTITY;
        }
        if (c.isInterface()
                || Modifier.isAbstract(c.getModifiers())
                || !c.getName().startsWith("io.fabric8.")
                || customDeserializer(c)) {
            return new Any();
        }
        return new Struct(c); // a struct without fields (only additionalProperties) takes anything
    }

    /** A model with its own deserializer (JSONSchemaPropsOrBool, ...) accepts more than its fields say. */
    private static boolean customDeserializer(Class<?> c) {
        JsonDeserialize d = c.getAnnotation(JsonDeserialize.class);
        return d != null && d.using() != ValueDeserializer.None.class;
    }

    private static Map<String, GoType> fieldsOf(Class<?> model) {
        Map<String, GoType> fields = new LinkedHashMap<>();
        for (Class<?> c = model; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                JsonProperty json = f.getAnnotation(JsonProperty.class);
                if (json != null
                        && !Modifier.isStatic(f.getModifiers())
                        && !json.value().isEmpty()) {
                    fields.putIfAbsent(json.value(), of(f.getGenericType()));
                }
            }
        }
        return fields;
    }

    /** k8s.io/api packages are named after their version: {@code v1}, {@code v1beta1}. */
    private static String packageOf(Class<?> model) {
        String pkg = model.getPackageName();
        String last = pkg.substring(pkg.lastIndexOf('.') + 1);
        return last.matches("v\\d+((alpha|beta)\\d+)?") ? last : "v1";
    }
}
