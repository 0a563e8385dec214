package io.lbk8s.install;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import tools.jackson.dataformat.yaml.YAMLMapper;
import tools.jackson.dataformat.yaml.YAMLWriteFeature;

/**
 * A renderer for the small subset of Helm's Go templates that {@code charts/lbk8s} uses, so that the chart can be
 * checked without a helm binary (see {@link HelmChartTest}). Supported, and nothing else (anything else throws):
 * <ul>
 *   <li>{@code {{ PIPELINE }}}, {@code {{- ... -}}} whitespace trimming, {@code {{/* comment *&#47;}}}</li>
 *   <li>{@code if PIPELINE} / {@code else} / {@code end}, {@code range PIPELINE} (dot is the element) / {@code end},
 *       {@code define "name"} / {@code end}</li>
 *   <li>{@code $name := PIPELINE}, in scope to the {@code end} of the block it is declared in (or of the file), as
 *       in Go; not in an included template</li>
 *   <li>operands: {@code .} {@code .A.b.c} (from dot), {@code $name}, {@code "string"} (escapes {@code \"},
 *       {@code \\}, {@code \n}), integers, {@code true}/{@code false}</li>
 *   <li>functions, called as {@code fn args} or piped as the last argument: {@code include NAME CTX},
 *       {@code toYaml}, {@code nindent N}, {@code indent N}, {@code quote}, {@code default DEFAULT}, {@code eq A B},
 *       {@code not}, {@code join SEP LIST}, {@code printf FORMAT ARGS...} (with {@code %s} only),
 *       {@code b64enc}, {@code sha256sum} (hex), {@code randBytes N} (base64 of N bytes from a SecureRandom),
 *       {@code dig KEY... DEFAULT DICT}, and {@code lookup APIVERSION KIND NAMESPACE NAME}, which finds what the
 *       {@link Lookup} given to {@link Chart#render} holds: by default nothing (an empty map), as in
 *       {@code helm template}; and {@code .Files.Get NAME}, a file of the chart as it is</li>
 * </ul>
 * Stricter than Helm on purpose: a missing value ({@code .Values.tpyo}) is an error rather than an empty string.
 * Truthiness is Go's: false, 0, "", nil, and empty lists and maps are false.
 */
final class HelmTemplate {
    private HelmTemplate() {}

    private static final SecureRandom RANDOM = new SecureRandom();

    // ---- the chart ----

    /**
     * Chart.yaml, values.yaml merged with overrides as Helm coalesces them (maps merge key by key, a null removes the
     * key, everything else replaces), and the templates.
     */
    record Chart(
            Path dir,
            Map<String, Object> chart,
            Map<String, Object> defaults,
            Map<String, List<Node>> defines,
            Map<String, List<Node>> templates) {

        static Chart load(Path dir) {
            Map<String, List<Node>> defines = new LinkedHashMap<>();
            Map<String, List<Node>> templates = new LinkedHashMap<>();
            try (Stream<Path> files = Files.list(dir.resolve("templates"))) {
                for (Path file : files.sorted().toList()) {
                    List<Node> nodes = parse(Files.readString(file), defines);
                    String name = file.getFileName().toString();
                    if (!name.startsWith("_")) {
                        templates.put(name, nodes);
                    }
                }
                return new Chart(
                        dir,
                        readYaml(dir.resolve("Chart.yaml")),
                        readYaml(dir.resolve("values.yaml")),
                        defines,
                        templates);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** Each template's output, by file name (NOTES.txt included), as {@code helm template} renders them. */
        Map<String, String> render(String releaseName, String namespace, Map<String, Object> overrides) {
            return render(releaseName, namespace, overrides, Lookup.NOTHING);
        }

        /** The same, as {@code helm install} or {@code helm upgrade} renders them in a cluster holding what {@code cluster} finds. */
        Map<String, String> render(
                String releaseName, String namespace, Map<String, Object> overrides, Lookup cluster) {
            Map<String, Object> root = new LinkedHashMap<>();
            root.put("Values", merge(defaults, overrides));
            root.put("Release", Map.of("Name", releaseName, "Namespace", namespace, "Service", "Helm"));
            root.put("Files", new ChartFiles(dir));
            root.put(
                    "Chart",
                    Map.of(
                            "Name",
                            chart.get("name"),
                            "Version",
                            chart.get("version"),
                            "AppVersion",
                            chart.get("appVersion")));
            Map<String, String> out = new LinkedHashMap<>();
            templates.forEach((name, nodes) ->
                    out.put(name, new Renderer(defines, cluster).render(nodes, root, root, new LinkedHashMap<>())));
            return out;
        }

        /** The manifests (every template but NOTES.txt), as one stream of YAML documents. */
        String manifests(String releaseName, String namespace, Map<String, Object> overrides) {
            return manifests(releaseName, namespace, overrides, Lookup.NOTHING);
        }

        String manifests(String releaseName, String namespace, Map<String, Object> overrides, Lookup cluster) {
            return render(releaseName, namespace, overrides, cluster).entrySet().stream()
                    .filter(e -> e.getKey().endsWith(".yaml"))
                    .map(e -> "---\n# Source: lbk8s/templates/" + e.getKey() + "\n" + e.getValue() + "\n")
                    .collect(Collectors.joining());
        }
    }

    /**
     * The chart's {@code .Files}: {@code Get} returns a file's text as it is, untemplated. Stricter than Helm, which
     * returns an empty string for a file that is not there.
     */
    record ChartFiles(Path dir) {
        String get(String name, String text) {
            Path file = dir.resolve(name).normalize();
            if (!file.startsWith(dir.normalize()) || !Files.isRegularFile(file)) {
                throw new IllegalArgumentException("no file " + name + " in the chart: " + text);
            }
            try {
                return Files.readString(file);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** Helm's {@code lookup} of one object: the object as a map, or an empty map when there is none. */
    @FunctionalInterface
    interface Lookup {
        /** No cluster: what {@code helm template} (and {@code --dry-run}) sees. */
        Lookup NOTHING = (apiVersion, kind, namespace, name) -> Map.of();

        Map<String, Object> find(String apiVersion, String kind, String namespace, String name);
    }

    static final YAMLMapper YAML = YAMLMapper.builder()
            .enable(YAMLWriteFeature.MINIMIZE_QUOTES)
            .disable(YAMLWriteFeature.WRITE_DOC_START_MARKER, YAMLWriteFeature.SPLIT_LINES)
            .build();

    @SuppressWarnings("unchecked")
    static Map<String, Object> readYaml(Path file) {
        try {
            return YAML.readValue(Files.readString(file), LinkedHashMap.class);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> merge(Map<String, Object> base, Map<String, Object> overrides) {
        Map<String, Object> out = new LinkedHashMap<>(base);
        overrides.forEach((k, v) -> {
            if (v == null) {
                out.remove(k);
            } else if (v instanceof Map<?, ?> o && out.get(k) instanceof Map<?, ?> b) {
                out.put(k, merge((Map<String, Object>) b, (Map<String, Object>) o));
            } else {
                out.put(k, v);
            }
        });
        return out;
    }

    // ---- parsing ----

    sealed interface Node {}

    record Text(String text) implements Node {}

    record Action(String pipeline) implements Node {}

    record If(String condition, List<Node> then, List<Node> otherwise) implements Node {}

    record Range(String pipeline, List<Node> body) implements Node {}

    record Assign(String variable, String pipeline) implements Node {}

    private static final Pattern ASSIGN = Pattern.compile("\\$([A-Za-z_][A-Za-z0-9_]*)\\s*:=\\s*(.+)", Pattern.DOTALL);

    private record Token(String text, boolean action) {}

    /** Parses one file; its {@code define}s go into {@code defines}, the rest is returned. */
    static List<Node> parse(String source, Map<String, List<Node>> defines) {
        List<Token> tokens = lex(source);
        int[] at = {0};
        List<Node> nodes = block(tokens, at, defines, false);
        if (at[0] != tokens.size()) {
            throw new IllegalArgumentException(
                    "unexpected {{ " + tokens.get(at[0]).text() + " }}");
        }
        return nodes;
    }

    /** Text and actions, with {@code {{-} and {@code -}}} already applied to the neighbouring text; comments dropped. */
    private static List<Token> lex(String s) {
        List<Token> tokens = new ArrayList<>();
        int i = 0;
        boolean trimNext = false;
        while (i < s.length()) {
            int open = s.indexOf("{{", i);
            String text = open < 0 ? s.substring(i) : s.substring(i, open);
            if (trimNext) {
                text = text.stripLeading();
            }
            if (open < 0) {
                tokens.add(new Token(text, false));
                break;
            }
            int close = s.indexOf("}}", open);
            if (close < 0) {
                throw new IllegalArgumentException("unclosed {{ at " + open);
            }
            String inner = s.substring(open + 2, close);
            if (inner.startsWith("- ") || inner.startsWith("-\n")) {
                text = text.stripTrailing();
                inner = inner.substring(2);
            }
            trimNext = inner.endsWith(" -") || inner.endsWith("\n-");
            if (trimNext) {
                inner = inner.substring(0, inner.length() - 2);
            }
            tokens.add(new Token(text, false));
            inner = inner.strip();
            if (!(inner.startsWith("/*") && inner.endsWith("*/"))) {
                tokens.add(new Token(inner, true));
            }
            i = close + 2;
        }
        return tokens;
    }

    private static List<Node> block(List<Token> tokens, int[] at, Map<String, List<Node>> defines, boolean nested) {
        List<Node> nodes = new ArrayList<>();
        while (at[0] < tokens.size()) {
            Token t = tokens.get(at[0]);
            if (!t.action()) {
                if (!t.text().isEmpty()) {
                    nodes.add(new Text(t.text()));
                }
                at[0]++;
                continue;
            }
            String a = t.text();
            if (a.equals("end") || a.equals("else")) {
                if (!nested) {
                    throw new IllegalArgumentException("{{ " + a + " }} outside of a block");
                }
                return nodes; // the caller consumes it
            }
            at[0]++;
            if (a.startsWith("if ")) {
                List<Node> then = block(tokens, at, defines, true);
                List<Node> otherwise = List.of();
                if (keyword(tokens, at).equals("else")) {
                    at[0]++;
                    otherwise = block(tokens, at, defines, true);
                }
                expectEnd(tokens, at, a);
                nodes.add(new If(a.substring(3).strip(), then, otherwise));
            } else if (ASSIGN.matcher(a).matches()) {
                Matcher m = ASSIGN.matcher(a);
                m.matches();
                nodes.add(new Assign(m.group(1), m.group(2).strip()));
            } else if (a.startsWith("range ") && !a.contains(":=")) {
                List<Node> body = block(tokens, at, defines, true);
                expectEnd(tokens, at, a);
                nodes.add(new Range(a.substring(6).strip(), body));
            } else if (a.startsWith("define ")) {
                List<Node> body = block(tokens, at, defines, true);
                expectEnd(tokens, at, a);
                defines.put(unquote(a.substring(7).strip()), body);
            } else if (a.startsWith("with ")
                    || a.startsWith("else if")
                    || a.startsWith("template ")
                    || a.contains(":=")
                    || a.startsWith("block ")) {
                throw new IllegalArgumentException("not in the supported subset: {{ " + a + " }}");
            } else {
                nodes.add(new Action(a));
            }
        }
        if (nested) {
            throw new IllegalArgumentException("missing {{ end }}");
        }
        return nodes;
    }

    private static String keyword(List<Token> tokens, int[] at) {
        return at[0] < tokens.size() && tokens.get(at[0]).action()
                ? tokens.get(at[0]).text()
                : "";
    }

    private static void expectEnd(List<Token> tokens, int[] at, String opener) {
        if (!keyword(tokens, at).equals("end")) {
            throw new IllegalArgumentException("{{ " + opener + " }} lacks its {{ end }}");
        }
        at[0]++;
    }

    // ---- evaluation ----

    private record Renderer(Map<String, List<Node>> defines, Lookup cluster) {
        /** @param vars the variables in scope; a block's own declarations end with it (each block gets a copy) */
        String render(List<Node> nodes, Object root, Object dot, Map<String, Object> vars) {
            StringBuilder out = new StringBuilder();
            for (Node node : nodes) {
                switch (node) {
                    case Text t -> out.append(t.text());
                    case Action a -> out.append(print(pipeline(a.pipeline(), root, dot, vars), a.pipeline()));
                    case Assign a -> vars.put(a.variable(), pipeline(a.pipeline(), root, dot, vars));
                    case If i ->
                        out.append(render(
                                truthy(pipeline(i.condition(), root, dot, vars)) ? i.then() : i.otherwise(),
                                root,
                                dot,
                                new LinkedHashMap<>(vars)));
                    case Range r -> {
                        Object over = pipeline(r.pipeline(), root, dot, vars);
                        if (over instanceof List<?> list) {
                            list.forEach(
                                    element -> out.append(render(r.body(), root, element, new LinkedHashMap<>(vars))));
                        } else if (over != null) {
                            throw new IllegalArgumentException(
                                    "range over a " + over.getClass().getSimpleName() + ": " + r.pipeline());
                        }
                    }
                }
            }
            return out.toString();
        }

        Object pipeline(String text, Object root, Object dot, Map<String, Object> vars) {
            Object piped = null;
            boolean first = true;
            for (String command : split(text, '|')) {
                List<String> words = split(command.strip(), ' ');
                List<Object> args = new ArrayList<>();
                for (String word : words.subList(1, words.size())) {
                    args.add(operand(word, dot, vars, text));
                }
                if (!first) {
                    args.add(piped);
                }
                String head = words.getFirst();
                if (head.endsWith(".Files.Get")) {
                    if (!(operand(head.substring(0, head.length() - ".Get".length()), dot, vars, text)
                            instanceof ChartFiles files)) {
                        throw new IllegalArgumentException("not the chart's Files: " + text);
                    }
                    arity("Files.Get", args, 1, text);
                    piped = files.get(args.getFirst().toString(), text);
                } else if (head.startsWith(".")
                        || head.startsWith("$")
                        || head.startsWith("\"")
                        || Character.isDigit(head.charAt(0))
                        || head.equals("true")
                        || head.equals("false")) {
                    if (!args.isEmpty()) {
                        throw new IllegalArgumentException("can't give arguments to a value: " + text);
                    }
                    piped = operand(head, dot, vars, text);
                } else {
                    piped = call(head, args, root, text);
                }
                first = false;
            }
            return piped;
        }

        Object call(String fn, List<Object> args, Object root, String text) {
            return switch (fn) {
                case "include" -> {
                    arity(fn, args, 2, text);
                    List<Node> body = defines.get(args.get(0).toString());
                    if (body == null) {
                        throw new IllegalArgumentException("no template " + args.get(0) + ": " + text);
                    }
                    yield render(
                            body, root, args.get(1), new LinkedHashMap<>()); // an included template sees no variables
                }
                case "toYaml" -> {
                    arity(fn, args, 1, text);
                    yield toYaml(args.getFirst());
                }
                case "nindent", "indent" -> {
                    arity(fn, args, 2, text);
                    String pad = " ".repeat(((Number) args.get(0)).intValue());
                    String indented = pad + print(args.get(1), text).replace("\n", "\n" + pad);
                    yield fn.equals("nindent") ? "\n" + indented : indented;
                }
                case "quote" -> {
                    arity(fn, args, 1, text);
                    yield "\""
                            + print(args.getFirst(), text).replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
                }
                case "default" -> {
                    arity(fn, args, 2, text);
                    yield truthy(args.get(1)) ? args.get(1) : args.get(0);
                }
                case "eq" -> {
                    arity(fn, args, 2, text);
                    yield Objects.equals(args.get(0), args.get(1));
                }
                case "not" -> {
                    arity(fn, args, 1, text);
                    yield !truthy(args.getFirst());
                }
                case "join" -> {
                    arity(fn, args, 2, text);
                    yield ((List<?>) args.get(1))
                            .stream()
                                    .map(o -> print(o, text))
                                    .collect(Collectors.joining(args.get(0).toString()));
                }
                case "printf" -> {
                    if (args.isEmpty()
                            || !(args.getFirst() instanceof String format)
                            || format.replace("%s", "").contains("%")) {
                        throw new IllegalArgumentException(
                                "printf with a format of %s verbs only is in the supported subset: " + text);
                    }
                    yield String.format(
                            format,
                            args.subList(1, args.size()).stream()
                                    .map(o -> print(o, text))
                                    .toArray());
                }
                case "b64enc" -> {
                    arity(fn, args, 1, text);
                    yield Base64.getEncoder()
                            .encodeToString(print(args.getFirst(), text).getBytes(StandardCharsets.UTF_8));
                }
                case "sha256sum" -> {
                    arity(fn, args, 1, text);
                    try {
                        yield HexFormat.of()
                                .formatHex(MessageDigest.getInstance("SHA-256")
                                        .digest(print(args.getFirst(), text).getBytes(StandardCharsets.UTF_8)));
                    } catch (NoSuchAlgorithmException e) {
                        throw new IllegalStateException(e);
                    }
                }
                case "randBytes" -> {
                    arity(fn, args, 1, text);
                    byte[] bytes = new byte[((Number) args.getFirst()).intValue()];
                    RANDOM.nextBytes(bytes);
                    yield Base64.getEncoder().encodeToString(bytes);
                }
                case "dig" -> {
                    if (args.size() < 3 || !(args.getLast() instanceof Map<?, ?>)) {
                        throw new IllegalArgumentException("dig takes keys, a default and a map: " + text);
                    }
                    Object value = args.getLast();
                    for (Object key : args.subList(0, args.size() - 2)) {
                        if (!(value instanceof Map<?, ?> map) || !map.containsKey(key)) {
                            yield args.get(args.size() - 2);
                        }
                        value = map.get(key);
                    }
                    yield value;
                }
                case "lookup" -> {
                    arity(fn, args, 4, text);
                    yield cluster.find(
                            print(args.get(0), text),
                            print(args.get(1), text),
                            print(args.get(2), text),
                            print(args.get(3), text));
                }
                default ->
                    throw new IllegalArgumentException("function " + fn + " is not in the supported subset: " + text);
            };
        }

        private static void arity(String fn, List<Object> args, int n, String text) {
            if (args.size() != n) {
                throw new IllegalArgumentException(
                        fn + " takes " + n + " argument(s), got " + args.size() + ": " + text);
            }
        }

        private static Object operand(String word, Object dot, Map<String, Object> vars, String text) {
            if (word.equals(".")) {
                return dot;
            }
            if (word.startsWith("$")) {
                if (!vars.containsKey(word.substring(1))) {
                    throw new IllegalArgumentException(
                            "undefined variable " + word + " (or not in the supported subset) in " + text);
                }
                return vars.get(word.substring(1));
            }
            if (word.startsWith("\"")) {
                return unquote(word);
            }
            if (word.equals("true") || word.equals("false")) {
                return Boolean.parseBoolean(word);
            }
            if (Character.isDigit(word.charAt(0))) {
                return Integer.parseInt(word);
            }
            if (!word.startsWith(".")) {
                throw new IllegalArgumentException("not an operand in the supported subset: " + word + " in " + text);
            }
            Object value = dot;
            String walked = "";
            for (String key : word.substring(1).split("\\.")) {
                walked += "." + key;
                if (!(value instanceof Map<?, ?> map) || !map.containsKey(key)) {
                    throw new IllegalArgumentException("no value " + walked + " (in " + text + ")");
                }
                value = map.get(key);
            }
            return value;
        }
    }

    static boolean truthy(Object v) {
        return switch (v) {
            case null -> false;
            case Boolean b -> b;
            case String s -> !s.isEmpty();
            case Number n -> n.doubleValue() != 0;
            case List<?> l -> !l.isEmpty();
            case Map<?, ?> m -> !m.isEmpty();
            default -> true;
        };
    }

    /** Go's fmt of a scalar; lists and maps must go through toYaml. */
    static String print(Object v, String text) {
        return switch (v) {
            case null -> throw new IllegalArgumentException("nil value printed: " + text);
            case String s -> s;
            case Double d when d == Math.rint(d) -> String.valueOf(d.longValue());
            case Number n -> n.toString();
            case Boolean b -> b.toString();
            default ->
                throw new IllegalArgumentException(
                        "a " + v.getClass().getSimpleName() + " printed without toYaml: " + text);
        };
    }

    /** Like Helm's toYaml: the YAML of the value without its trailing newline. */
    static String toYaml(Object v) {
        String yaml = YAML.writeValueAsString(v);
        if (yaml.startsWith("---")) {
            yaml = yaml.substring(3).stripLeading();
        }
        return yaml.stripTrailing();
    }

    private static String unquote(String word) {
        if (word.length() < 2 || !word.startsWith("\"") || !word.endsWith("\"")) {
            throw new IllegalArgumentException("not a string: " + word);
        }
        StringBuilder out = new StringBuilder();
        for (int i = 1; i < word.length() - 1; i++) {
            char c = word.charAt(i);
            if (c == '\\' && i + 1 < word.length() - 1) {
                char next = word.charAt(++i);
                switch (next) {
                    case '"', '\\' -> out.append(next);
                    case 'n' -> out.append('\n');
                    default ->
                        throw new IllegalArgumentException(
                                "the escape \\" + next + " is not in the supported subset: " + word);
                }
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    /** Splits on {@code sep} outside double quotes; runs of spaces count as one. */
    private static List<String> split(String s, char sep) {
        List<String> parts = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' && (i == 0 || s.charAt(i - 1) != '\\')) {
                quoted = !quoted;
            }
            if (c == '(' && !quoted) {
                throw new IllegalArgumentException("parentheses are not in the supported subset: " + s);
            }
            if (c == sep && !quoted) {
                if (!current.isEmpty() || sep != ' ') {
                    parts.add(current.toString());
                }
                current.setLength(0);
            } else {
                current.append(c);
            }
        }
        if (!current.isEmpty() || sep != ' ') {
            parts.add(current.toString());
        }
        return parts;
    }
}
